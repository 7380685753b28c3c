package dev.zklock.spring;

import org.apache.curator.framework.CuratorFrameworkFactory;

/**
 * A callback that adjusts the {@code CuratorFramework} that {@link ZkLockAutoConfiguration} starts from
 * {@code zklock.connect-string}: every bean of this type gets the builder, in {@code @Order} order, after the
 * {@code zklock.*} properties are applied and before the client is built and started. It does not apply to a client
 * the application defines itself, which the application configures as it likes.
 *
 * <p>An implementation may change anything on the builder (an ensemble tracker, ACLs, a compression provider, another
 * retry policy); it is called once, on the thread that makes the context, and must not start or build the client.
 *
 * <pre>{@code
 * @Bean
 * ZkLockCuratorCustomizer zooKeeperAcls() {
 *     return builder -> builder.aclProvider(new MyAclProvider());
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ZkLockCuratorCustomizer {
    /**
     * Adjusts the builder of the client zklock is about to start.
     *
     * @param builder the builder, with the {@code zklock.*} properties applied
     */
    void customize(CuratorFrameworkFactory.Builder builder);
}
