package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * A zklock lock as the workload drives it: the exclusive, reentrant, read, write and multi-locks alike. The claims'
 * tokens are the lock's fencing tokens, one per path; their session is the client's session before and after the
 * acquire when the two are the same (sessions only move forward, so the nodes were made on that one), and otherwise
 * the owner ZooKeeper reports for the node of each path with that token.
 */
final class ZkContender implements Contender {
    static final LockKind REENTRANT = new BuiltInKind("zk-reentrant", LockKind.MUTEX, 1, true, (client, paths) -> {
        ZkReentrantLock lock = new ZkReentrantLock(client, paths.get(0));
        return new ZkContender(
                client,
                lock,
                SafetyMonitor.Mode.EXCLUSIVE,
                paths,
                () -> Map.of(lock.path(), lock.fencingToken()),
                lock::holdState);
    });

    static final LockKind EXCLUSIVE = new BuiltInKind("zk-exclusive", LockKind.MUTEX, 1, false, (client, paths) -> {
        ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, paths.get(0)); // shares the mutex kinds' paths
        return new ZkContender(
                client,
                lock,
                SafetyMonitor.Mode.EXCLUSIVE,
                paths,
                () -> Map.of(lock.path(), lock.fencingToken()),
                lock::holdState);
    });

    static final LockKind MULTI = new BuiltInKind("zk-multi", LockKind.MUTEX, 2, true, (client, paths) -> {
        ZkMultiLock lock = new ZkMultiLock(client, paths);
        return new ZkContender(
                client, lock, SafetyMonitor.Mode.EXCLUSIVE, lock.paths(), lock::fencingTokens, lock::holdState);
    });

    static final LockKind READ = new BuiltInKind("zk-read", LockKind.READ_WRITE, 1, true, (client, paths) -> {
        ZkReadWriteLock.ReadLock lock = new ZkReadWriteLock(client, paths.get(0)).readLock();
        return new ZkContender(
                client,
                lock,
                SafetyMonitor.Mode.READ,
                paths,
                () -> Map.of(lock.path(), lock.fencingToken()),
                lock::holdState);
    });

    static final LockKind WRITE = new BuiltInKind("zk-write", LockKind.READ_WRITE, 1, true, (client, paths) -> {
        ZkReadWriteLock.WriteLock lock = new ZkReadWriteLock(client, paths.get(0)).writeLock();
        return new ZkContender(
                client,
                lock,
                SafetyMonitor.Mode.WRITE,
                paths,
                () -> Map.of(lock.path(), lock.fencingToken()),
                lock::holdState);
    });

    private final CuratorFramework client;
    private final InterProcessLock lock;
    private final SafetyMonitor.Mode mode;
    private final List<String> paths;
    private final Supplier<Map<String, Long>> tokens;
    private final Supplier<Optional<LockState>> state;

    private ZkContender(
            CuratorFramework client,
            InterProcessLock lock,
            SafetyMonitor.Mode mode,
            List<String> paths,
            Supplier<Map<String, Long>> tokens,
            Supplier<Optional<LockState>> state) {
        this.client = client;
        this.state = state;
        this.lock = lock;
        this.mode = mode;
        this.paths = List.copyOf(paths);
        this.tokens = tokens;
    }

    @Override
    public List<String> lockPaths() {
        return paths;
    }

    @Override
    public Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception {
        long before = Sessions.current(client);
        if (!lock.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        Optional<LockState> entry = state.get();
        Map<String, Long> ours = tokens.get();
        long after = Sessions.current(client);
        List<SafetyMonitor.Claim> claims = new ArrayList<>();
        for (String path : paths) {
            long token = ours.get(path);
            OptionalLong session = before == after && before != 0
                    ? OptionalLong.of(before)
                    : Sessions.ownerOf(client, path, FencingToken.creationZxid(token));
            if (session.isEmpty()) {
                return Optional.of(List.of());
            }
            claims.add(new SafetyMonitor.Claim(path, mode, token, session.getAsLong()).heldAtEntry(entry));
        }
        return Optional.of(claims);
    }

    @Override
    public void release() throws Exception {
        lock.release();
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
