package dev.zklock.spring;

/**
 * How a {@link ZkSpringLockRegistry} makes the ZooKeeper path of a lock key, in place of its root, a slash and the key:
 * zklock's counterpart of Spring's {@code ZookeeperLockRegistry.KeyToPathStrategy}, so a registry moved from Spring's
 * keeps its paths. Set it with {@link ZkSpringLockRegistry.Builder#keyToPath(ZkLockKeyToPath)}; with Spring Boot, a
 * bean of this type is used by the registry {@link ZkLockAutoConfiguration} makes, and {@code zklock.registry.root}
 * is then not used.
 *
 * <p>An implementation must be a pure function: fast, with no I/O, safe for use by multiple threads, and give one key
 * the same path every time (the registry keeps one lock per path). Two keys that map to one path share its lock.
 *
 * <pre>{@code
 * @Bean
 * ZkLockKeyToPath tenantLocks() {
 *     return key -> "/tenants/" + key.substring(0, key.indexOf(':')) + "/locks/" + key.substring(key.indexOf(':') + 1);
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface ZkLockKeyToPath {
    /**
     * Returns the lock path of {@code key}.
     *
     * @param key the key given to {@code obtain}
     * @return an absolute ZooKeeper path, relative to the client's namespace; the registry rejects an invalid one with
     *     {@code IllegalArgumentException}
     */
    String pathFor(String key);
}
