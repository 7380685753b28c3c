package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.zookeeper.data.Stat;

/**
 * A zklock lock with local hand-off (a cohort lock) as the workload drives it: the threads of one client share the
 * lock object, so a release passes the lock to the next of them with no ZooKeeper request, and a cached lock keeps its
 * node for a while after the last release. The claim's token is the lock's fencing token: the holds of one node
 * share its creation zxid and differ in their pass. Its session is
 * the node's owner as ZooKeeper reports it, read once per node (one request) and remembered: a local pass or a cached
 * node may hand over a node created long before the acquire, under a session the client no longer has, so the
 * client's session around the acquire says nothing about it.
 */
final class CohortContender implements Contender {
    /** How long the cached kind keeps an idle node: short, so that a run ends with its nodes gone soon after. */
    static final Duration KEEP_IDLE = Duration.ofMillis(30);

    static final LockKind REENTRANT = new BuiltInKind("zk-cohort", LockKind.MUTEX, 1, true, (client, paths) -> {
        ZkReentrantLock lock =
                ZkReentrantLock.builder(client, paths.get(0)).localHandOff().build();
        return new CohortContender(
                client,
                lock,
                SafetyMonitor.Mode.EXCLUSIVE,
                lock.path(),
                lock::getLockPath,
                lock::fencingToken,
                lock::holdState);
    });

    static final LockKind CACHED =
            new BuiltInKind("zk-cohort-cached", LockKind.MUTEX, 1, true, KEEP_IDLE, (client, paths) -> {
                ZkReentrantLock lock = ZkReentrantLock.builder(client, paths.get(0))
                        .localHandOff()
                        .keepIdle(KEEP_IDLE)
                        .build();
                return new CohortContender(
                        client,
                        lock,
                        SafetyMonitor.Mode.EXCLUSIVE,
                        lock.path(),
                        lock::getLockPath,
                        lock::fencingToken,
                        lock::holdState);
            });

    static final LockKind READ = new BuiltInKind("zk-cohort-read", LockKind.READ_WRITE, 1, true, (client, paths) -> {
        ZkReadWriteLock.ReadLock lock = ZkReadWriteLock.builder(client, paths.get(0))
                .localHandOff()
                .build()
                .readLock();
        return new CohortContender(
                client,
                lock,
                SafetyMonitor.Mode.READ,
                lock.path(),
                lock::getLockPath,
                lock::fencingToken,
                lock::holdState);
    });

    static final LockKind WRITE = new BuiltInKind("zk-cohort-write", LockKind.READ_WRITE, 1, true, (client, paths) -> {
        ZkReadWriteLock.WriteLock lock = ZkReadWriteLock.builder(client, paths.get(0))
                .localHandOff()
                .build()
                .writeLock();
        return new CohortContender(
                client,
                lock,
                SafetyMonitor.Mode.WRITE,
                lock.path(),
                lock::getLockPath,
                lock::fencingToken,
                lock::holdState);
    });

    private final CuratorFramework client;
    private final InterProcessLock lock;
    private final SafetyMonitor.Mode mode;
    private final String path;
    private final Supplier<String> nodePath;
    private final LongSupplier token;
    private final Supplier<Optional<LockState>> state;
    private volatile Owner known; // the node last identified, and its session; any thread may replace it

    private CohortContender(
            CuratorFramework client,
            InterProcessLock lock,
            SafetyMonitor.Mode mode,
            String path,
            Supplier<String> nodePath,
            LongSupplier token,
            Supplier<Optional<LockState>> state) {
        this.client = client;
        this.state = state;
        this.lock = lock;
        this.mode = mode;
        this.path = path;
        this.nodePath = nodePath;
        this.token = token;
    }

    @Override
    public List<String> lockPaths() {
        return List.of(path);
    }

    @Override
    public Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception {
        if (!lock.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        Optional<LockState> entry = this.state.get();
        String node = nodePath.get();
        long ours = token.getAsLong();
        long creationZxid = FencingToken.creationZxid(ours);
        Owner owner = known;
        if (owner == null || !owner.node().equals(node) || owner.creationZxid() != creationZxid) {
            Stat stat = Sessions.statQuietly(client, node);
            if (stat == null || stat.getCzxid() != creationZxid) {
                return Optional.of(List.of()); // the node is gone (the hold is lost) or cannot be read now
            }
            owner = new Owner(node, creationZxid, stat.getEphemeralOwner());
            known = owner;
        }
        return Optional.of(List.of(new SafetyMonitor.Claim(path, mode, ours, owner.session()).heldAtEntry(entry)));
    }

    @Override
    public void release() throws Exception {
        lock.release();
    }

    @Override
    public String toString() {
        return lock.toString();
    }

    /** A lock node, its creation zxid and the session that owns it; a node's owner never changes. */
    private record Owner(String node, long creationZxid, long session) {}
}
