package dev.zklock.cli.bench;

import dev.zklock.spring.ZkSpringLockRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.utils.ZKPaths;
import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The lock of one key of a Spring Integration lock registry, as the bench drives a lock: a lock path {@code
 * <root>/<key>} is the key's lock in a registry on {@code <root>}, one registry per lock object (an application's). Safe
 * for use by multiple threads, as the registry's lock is.
 */
final class SpringRegistryLock implements InterProcessLock {
    private final Lock lock;
    private final AtomicInteger holds = new AtomicInteger();

    private SpringRegistryLock(Lock lock) {
        this.lock = lock;
    }

    /** The key's lock in a {@link ZkSpringLockRegistry} with its defaults (local hand-off). No ZooKeeper call. */
    static InterProcessLock zklock(CuratorFramework client, String path) {
        ZKPaths.PathAndNode rootAndKey = ZKPaths.getPathAndNode(path);
        ZkSpringLockRegistry registry =
                ZkSpringLockRegistry.builder(client).root(rootAndKey.getPath()).build();
        return new SpringRegistryLock(registry.obtain(rootAndKey.getNode()));
    }

    /**
     * The key's lock in Spring's {@link ZookeeperLockRegistry}, whose connection check runs on an executor of its own
     * as Spring makes it (one thread that times out when idle), with daemon threads so that the bench's JVM can end.
     */
    static InterProcessLock spring(CuratorFramework client, String path) {
        ZKPaths.PathAndNode rootAndKey = ZKPaths.getPathAndNode(path);
        return new SpringRegistryLock(
                springRegistry(client, rootAndKey.getPath()).obtain(rootAndKey.getNode()));
    }

    /**
     * Returns Spring's {@link ZookeeperLockRegistry} on {@code root}, its connection check on an executor of its own as
     * Spring makes it (one thread that times out when idle), with daemon threads so that the bench's JVM can end.
     */
    static ZookeeperLockRegistry springRegistry(CuratorFramework client, String root) {
        ZookeeperLockRegistry registry = new ZookeeperLockRegistry(client, root);
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setAllowCoreThreadTimeOut(true);
        executor.setDaemon(true);
        executor.setThreadNamePrefix("spring-lock-check-");
        executor.initialize();
        registry.setMutexTaskExecutor(executor);
        return registry;
    }

    @Override
    public void acquire() throws InterruptedException {
        lock.lockInterruptibly();
        holds.incrementAndGet();
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        boolean acquired = lock.tryLock(time, unit);
        if (acquired) {
            holds.incrementAndGet();
        }
        return acquired;
    }

    @Override
    public void release() {
        holds.decrementAndGet();
        lock.unlock();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return holds.get() > 0;
    }
}
