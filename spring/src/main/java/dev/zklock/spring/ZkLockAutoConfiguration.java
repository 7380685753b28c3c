package dev.zklock.spring;

import dev.zklock.recipes.locks.ZkReentrantLock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Boot's auto-configuration of zklock's lock registry: a {@link ZkSpringLockRegistry} bean over the
 * application's {@code CuratorFramework}, or over a client it starts from {@code zklock.connect-string} and closes with
 * the context. Each bean backs off when the application defines its own: any {@code LockRegistry} bean replaces the
 * registry, a {@code CuratorFramework} bean the client. The client it starts takes the timeouts, retry, namespace and
 * authentication of {@link ZkLockProperties} and then every {@link ZkLockCuratorCustomizer} bean; the registry takes
 * {@code zklock.registry.*} and a {@link ZkLockKeyToPath} bean if there is one.
 *
 * <p>Health, meters and observations are auto-configurations of their own, ordered after this one so they see the
 * client it may define: {@link ZkLockHealthContributorAutoConfiguration}, {@link ZkLockMetricsAutoConfiguration} and
 * {@link ZkLockObservationAutoConfiguration}. This one needs neither Actuator nor Micrometer.
 *
 * <p>Runs after Spring Cloud Zookeeper's auto-configuration, so the client that one makes is used. Making the beans
 * costs no ZooKeeper call; a client started here connects in the background.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration")
@ConditionalOnClass({CuratorFramework.class, LockRegistry.class, ZkReentrantLock.class})
@EnableConfigurationProperties(ZkLockProperties.class)
public final class ZkLockAutoConfiguration {
    private static final Logger LOGGER = LoggerFactory.getLogger(ZkLockAutoConfiguration.class);

    /** Made by Spring. */
    public ZkLockAutoConfiguration() {}

    /**
     * The client zklock starts when the application has none: from {@code zklock.connect-string}, with the timeouts,
     * namespace and authentication of the properties and Curator's exponential back-off of {@code zklock.retry.*},
     * then adjusted by every {@link ZkLockCuratorCustomizer} bean in order, and connected (waited for at most
     * {@code zklock.connection-timeout}); closed with the context.
     *
     * @param properties the {@code zklock.*} properties
     * @param customizers the customizer beans
     * @return a started client
     * @throws IllegalStateException if {@code zklock.auth.scheme} is set without {@code zklock.auth.credentials}, or
     *     the other way round
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    @ConditionalOnProperty(prefix = "zklock", name = "connect-string")
    public CuratorFramework zkLockCuratorFramework(
            ZkLockProperties properties, ObjectProvider<ZkLockCuratorCustomizer> customizers) {
        CuratorFrameworkFactory.Builder builder = clientBuilder(properties);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        CuratorFramework client = builder.build();
        client.start();
        awaitConnection(client, properties.getConnectionTimeout());
        return client;
    }

    /**
     * Waits, at most {@code timeout}, for the client's first connection, so that a lock taken right after the context
     * starts finds the client connected (a clean-clone build saw the starter's test refused a {@code tryLock()} 0.9 s
     * after the start); if ZooKeeper cannot be reached by then the application starts all the same, and its locks wait for
     * the connection or time out. On the thread that starts the context.
     */
    private static void awaitConnection(CuratorFramework client, Duration timeout) {
        try {
            if (!client.blockUntilConnected(Math.toIntExact(timeout.toMillis()), TimeUnit.MILLISECONDS)) {
                LOGGER.warn("zklock: no connection to ZooKeeper within {}; starting all the same", timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static CuratorFrameworkFactory.Builder clientBuilder(ZkLockProperties properties) {
        ZkLockProperties.Retry retry = properties.getRetry();
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(properties.getConnectString())
                .sessionTimeoutMs(Math.toIntExact(properties.getSessionTimeout().toMillis()))
                .connectionTimeoutMs(
                        Math.toIntExact(properties.getConnectionTimeout().toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(
                        Math.toIntExact(retry.getBaseSleep().toMillis()), retry.getMaxRetries()));
        if (properties.getNamespace() != null) {
            builder.namespace(properties.getNamespace());
        }
        ZkLockProperties.Auth auth = properties.getAuth();
        if ((auth.getScheme() == null) != (auth.getCredentials() == null)) {
            throw new IllegalStateException("zklock.auth.scheme and zklock.auth.credentials go together: scheme '"
                    + auth.getScheme() + "' with credentials " + (auth.getCredentials() == null ? "unset" : "set"));
        }
        if (auth.getScheme() != null) {
            builder.authorization(auth.getScheme(), auth.getCredentials().getBytes(StandardCharsets.UTF_8));
        }
        return builder;
    }

    /**
     * The lock registry, with the root, local hand-off and idle time of {@code zklock.registry.*}, and the key-to-path
     * function of a {@link ZkLockKeyToPath} bean if there is exactly one.
     *
     * @param client the application's client, or the one zklock started
     * @param properties the {@code zklock.*} properties
     * @param keyToPath a key-to-path bean, if any
     * @return the registry; its close stops its timers and leaves the client open
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnSingleCandidate(CuratorFramework.class)
    @ConditionalOnMissingBean(LockRegistry.class)
    public ZkSpringLockRegistry zkLockRegistry(
            CuratorFramework client, ZkLockProperties properties, ObjectProvider<ZkLockKeyToPath> keyToPath) {
        ZkLockProperties.Registry registry = properties.getRegistry();
        ZkSpringLockRegistry.Builder builder = ZkSpringLockRegistry.builder(client)
                .root(registry.getRoot())
                .localHandOff(registry.isLocalHandOff())
                .keepIdle(registry.getKeepIdle())
                .queueView(registry.isQueueView());
        keyToPath.ifUnique(builder::keyToPath);
        ZkSpringLockRegistry locks = builder.build();
        locks.setCacheCapacity(registry.getCacheCapacity());
        if (registry.getIdleTime() != null) {
            locks.setIdleTime(registry.getIdleTime());
        }
        if (registry.getDefaultTtl() != null) {
            locks.setDefaultTtl(registry.getDefaultTtl());
        }
        return locks;
    }
}
