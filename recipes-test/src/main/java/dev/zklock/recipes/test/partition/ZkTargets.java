package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkLease;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.locks.ZkSemaphore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * The targets of zklock's locks. A hold's token is its fencing token, read from the lock with no ZooKeeper call; a state
 * event is about a hold when it names the hold's node, which for a lock is the node whose creation zxid the token
 * carries (a cohort's local passes share it) and for a semaphore's lease is the lease's node.
 */
final class ZkTargets {
    private ZkTargets() {}

    static List<Target> reentrant(CuratorFramework client, String key) {
        ZkReentrantLock lock = new ZkReentrantLock(client, key);
        return List.of(lock(lock, lock::fencingToken, lock::holdState, lock::addStateListener));
    }

    /** A lock that reads its queue from the client's queue view (one persistent recursive watch on the path). */
    static List<Target> reentrantView(CuratorFramework client, String key) {
        ZkReentrantLock lock = ZkReentrantLock.builder(client, key).queueView().build();
        return List.of(lock(lock, lock::fencingToken, lock::holdState, lock::addStateListener));
    }

    static List<Target> exclusive(CuratorFramework client, String key) {
        ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, key);
        return List.of(lock(lock, lock::fencingToken, lock::holdState, lock::addStateListener));
    }

    static List<Target> semaphoreMutex(CuratorFramework client, String key) {
        ZkExclusiveLock lock = new ZkExclusiveLock(client, key);
        return List.of(lock(lock, lock::fencingToken, lock::holdState, lock::addStateListener));
    }

    /** A reader and a writer on one lock object. */
    static List<Target> readWrite(CuratorFramework client, String key) {
        return readWrite(new ZkReadWriteLock(client, key));
    }

    /** A reader and a writer on one lock object that reads its queues from the client's queue view. */
    static List<Target> readWriteView(CuratorFramework client, String key) {
        return readWrite(ZkReadWriteLock.builder(client, key).queueView().build());
    }

    private static List<Target> readWrite(ZkReadWriteLock both) {
        ZkReadWriteLock.ReadLock read = both.readLock();
        ZkReadWriteLock.WriteLock write = both.writeLock();
        return List.of(
                lock(read, read::fencingToken, read::holdState, read::addStateListener),
                lock(write, write::fencingToken, write::holdState, write::addStateListener));
    }

    /** Over {@code <key>/a} and {@code <key>/b}, taken at once; one transaction makes both nodes, so one token. */
    static List<Target> multi(CuratorFramework client, String key) {
        ZkMultiLock lock = new ZkMultiLock(client, PartitionWorkloads.multiPaths(key));
        LongSupplier token = () -> lock.fencingTokens().values().iterator().next();
        return List.of(lock(lock, token, lock::holdState, lock::addStateListener));
    }

    /** Two threads on one lock object with local hand-off, so that they pass it between them. */
    static List<Target> cohort(CuratorFramework client, String key) {
        return cohort(ZkReentrantLock.builder(client, key).localHandOff().build());
    }

    /** As {@link #cohort}, its node taken and vouched for through the client's queue view. */
    static List<Target> cohortView(CuratorFramework client, String key) {
        return cohort(
                ZkReentrantLock.builder(client, key).localHandOff().queueView().build());
    }

    private static List<Target> cohort(ZkReentrantLock lock) {
        Target target = lock(lock, lock::fencingToken, lock::holdState, lock::addStateListener);
        return List.of(target, target);
    }

    static List<Target> semaphore(CuratorFramework client, String key) {
        ZkSemaphore semaphore = new ZkSemaphore(client, key, PartitionWorkloads.LEASES);
        return List.of(new Target() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                return semaphore.acquire(timeout).map(ZkTargets::leaseHeld);
            }

            @Override
            public void addStateListener(LockStateListener listener) {
                semaphore.addStateListener(listener);
            }
        });
    }

    private static Target.Held leaseHeld(ZkLease lease) {
        String suffix = "/" + lease.getNodeName();
        return new Target.Held(
                OptionalLong.empty(),
                event -> event.node().endsWith(suffix),
                () -> Optional.of(lease.state()),
                lease::close);
    }

    private static Target lock(
            InterProcessLock lock,
            LongSupplier token,
            Supplier<Optional<LockState>> state,
            Consumer<LockStateListener> listeners) {
        return new Target() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                if (!lock.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                long ours = token.getAsLong();
                long node = FencingToken.creationZxid(ours);
                return Optional.of(new Held(
                        OptionalLong.of(ours),
                        event -> FencingToken.creationZxid(event.fencingToken()) == node,
                        state,
                        lock::release));
            }

            @Override
            public void addStateListener(LockStateListener listener) {
                listeners.accept(listener);
            }

            @Override
            public String toString() {
                return lock.toString();
            }
        };
    }
}
