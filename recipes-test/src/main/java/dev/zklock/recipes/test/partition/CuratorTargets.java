package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.locks.LockStateListener;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;

/**
 * The targets of Curator's recipes. Curator gives no fencing token, so a hold's token is the creation zxid of its node,
 * read with one request after the acquire (empty when that read fails: the connection went, or the node is gone).
 * Curator hides which node a hold is: the mutex's {@code getLockPath()} is protected and the semaphore mutex keeps its
 * lease in a private field, so both are read by reflection (the recipes are on the class path, in no named module). A
 * semaphore's lease has no token: leases are not exclusive.
 */
final class CuratorTargets {
    private static final Method LOCK_PATH = method(InterProcessMutex.class, "getLockPath");
    private static final Field LEASE = field(InterProcessSemaphoreMutex.class, "lease");

    private CuratorTargets() {}

    static List<Target> mutex(CuratorFramework client, String key) {
        InterProcessMutex mutex = new InterProcessMutex(client, key);
        return List.of(lock(client, mutex, () -> nodeOf(mutex)));
    }

    static List<Target> semaphoreMutex(CuratorFramework client, String key) {
        InterProcessSemaphoreMutex mutex = new InterProcessSemaphoreMutex(client, key);
        return List.of(lock(
                client,
                mutex,
                () -> ZKPaths.makePath(key, "leases", leaseOf(mutex).getNodeName())));
    }

    /** A reader and a writer on one lock object. */
    static List<Target> readWrite(CuratorFramework client, String key) {
        InterProcessReadWriteLock both = new InterProcessReadWriteLock(client, key);
        InterProcessMutex read = both.readLock();
        InterProcessMutex write = both.writeLock();
        return List.of(lock(client, read, () -> nodeOf(read)), lock(client, write, () -> nodeOf(write)));
    }

    /**
     * Over {@code <key>/a} and {@code <key>/b}, taken in that order; the token is the first path's node's: a mutex is
     * held in the order its nodes were made, so it grows from hold to hold.
     */
    static List<Target> multi(CuratorFramework client, String key) {
        List<String> paths = PartitionWorkloads.multiPaths(key);
        InterProcessMutex first = new InterProcessMutex(client, paths.get(0));
        InterProcessMultiLock both =
                new InterProcessMultiLock(List.of(first, new InterProcessMutex(client, paths.get(1))));
        return List.of(lock(client, both, () -> nodeOf(first)));
    }

    static List<Target> semaphore(CuratorFramework client, String key) {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, key, PartitionWorkloads.LEASES);
        return List.of(new CuratorTarget() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                Lease lease = semaphore.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
                return lease == null ? Optional.empty() : Optional.of(held(OptionalLong.empty(), lease::close));
            }
        });
    }

    /** Says which node the current thread's hold is. */
    @FunctionalInterface
    interface NodeOfHold {
        String node() throws Exception;
    }

    private static Target lock(CuratorFramework client, InterProcessLock lock, NodeOfHold node) {
        return new CuratorTarget() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                if (!lock.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                return Optional.of(held(creationZxid(client, node), lock::release));
            }
        };
    }

    static OptionalLong creationZxid(CuratorFramework client, NodeOfHold node) throws InterruptedException {
        try {
            Stat stat = client.checkExists().forPath(node.node());
            return stat == null ? OptionalLong.empty() : OptionalLong.of(stat.getCzxid());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception connectionTrouble) {
            return OptionalLong.empty();
        }
    }

    private static Target.Held held(OptionalLong token, Target.Release release) {
        return new Target.Held(token, event -> false, Optional::empty, release);
    }

    static String nodeOf(InterProcessMutex mutex) throws ReflectiveOperationException {
        return (String) LOCK_PATH.invoke(mutex);
    }

    private static Lease leaseOf(InterProcessSemaphoreMutex mutex) throws ReflectiveOperationException {
        return (Lease) LEASE.get(mutex);
    }

    private static Method method(Class<?> owner, String name) {
        try {
            Method method = owner.getDeclaredMethod(name);
            method.setAccessible(true);
            return method;
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static Field field(Class<?> owner, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A Curator recipe: no hold states of its own; its holders follow the client's connection. */
    private abstract static class CuratorTarget implements Target {
        @Override
        public void addStateListener(LockStateListener listener) {}

        @Override
        public boolean followsConnection() {
            return true;
        }
    }
}
