package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * A zklock exclusive lock ({@link ZkReentrantLock} or {@link ZkExclusiveLock}) as the workload drives it. The claim's
 * token is the lock's fencing token; its session is the client's session before and after the acquire when the two are
 * the same (sessions only move forward, so the node was made on that one), and otherwise the owner ZooKeeper reports
 * for the node with that token.
 */
final class ZkContender implements Contender {
    static final LockKind REENTRANT = new SinglePathKind("zk-reentrant", true, (client, path) -> {
        ZkReentrantLock lock = new ZkReentrantLock(client, path);
        return new ZkContender(client, lock, lock.path(), lock::fencingToken, lock::participantNodes);
    });

    static final LockKind EXCLUSIVE = new SinglePathKind("zk-exclusive", false, (client, path) -> {
        ZkExclusiveLock lock = new ZkExclusiveLock(client, path);
        return new ZkContender(client, lock, lock.path(), lock::fencingToken, lock::participantNodes);
    });

    /** The queue of the lock path, for finding our node by its token. */
    @FunctionalInterface
    interface Participants {
        List<String> nodes() throws InterruptedException;
    }

    private final CuratorFramework client;
    private final InterProcessLock lock;
    private final String path;
    private final LongSupplier token;
    private final Participants participants;

    private ZkContender(
            CuratorFramework client,
            InterProcessLock lock,
            String path,
            LongSupplier token,
            Participants participants) {
        this.client = client;
        this.lock = lock;
        this.path = path;
        this.token = token;
        this.participants = participants;
    }

    @Override
    public List<String> lockPaths() {
        return List.of(path);
    }

    @Override
    public Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception {
        long before = Sessions.current(client);
        if (!lock.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        long ours = token.getAsLong();
        long after = Sessions.current(client);
        OptionalLong session = before == after && before != 0
                ? OptionalLong.of(before)
                : Sessions.ownerOf(client, participants.nodes(), ours);
        if (session.isEmpty()) {
            return Optional.of(List.of());
        }
        return Optional.of(
                List.of(new SafetyMonitor.Claim(path, SafetyMonitor.Mode.EXCLUSIVE, ours, session.getAsLong())));
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
