package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkLease;
import dev.zklock.recipes.locks.ZkSemaphore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;

/**
 * A semaphore as the workload drives it, in the layout of Curator's {@code InterProcessSemaphoreV2}, which zklock's
 * {@link ZkSemaphore} and {@link ZkExclusiveLock} (its default layout) share: one lease per acquire. A lease's claim reads the
 * stat of its node under {@code <path>/leases} after the acquire (its creation zxid makes the token, its ephemeral owner
 * is the session): one request more than the semaphore's own. The semaphore mutex's token is its fencing token. Confined to one thread, as a lease belongs to no thread.
 */
final class SemaphoreContender implements Contender {
    /** The leases of the semaphore kinds. */
    static final int LEASES = 3;

    static final LockKind ZK_SEMAPHORE =
            new BuiltInKind("zk-semaphore", LockKind.SEMAPHORE, 1, false, (client, paths) -> {
                ZkSemaphore semaphore = new ZkSemaphore(client, paths.get(0), LEASES);
                return new SemaphoreContender(client, paths.get(0), LEASES, timeout -> {
                    Optional<ZkLease> lease = semaphore.acquire(timeout);
                    return lease.map(Held::of).orElse(null);
                });
            });

    static final LockKind CURATOR_SEMAPHORE =
            BuiltInKind.curators("curator-semaphore", LockKind.SEMAPHORE, false, (client, paths) -> {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, paths.get(0), LEASES);
                return new SemaphoreContender(client, paths.get(0), LEASES, timeout -> {
                    Lease lease = semaphore.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    return lease == null ? null : Held.of(lease);
                });
            });

    static final LockKind ZK_SEMAPHORE_MUTEX =
            new BuiltInKind("zk-semaphore-mutex", LockKind.SEMAPHORE_MUTEX, 1, false, (client, paths) -> {
                ZkExclusiveLock lock = new ZkExclusiveLock(client, paths.get(0));
                String leases = ZKPaths.makePath(paths.get(0), "leases");
                return new SemaphoreContender(client, paths.get(0), 1, timeout -> {
                    if (!lock.acquire(timeout)) {
                        return null;
                    }
                    long token = lock.fencingToken();
                    long node = FencingToken.creationZxid(token);
                    return new Held(null, token, () -> Sessions.ownerOf(client, leases, node), lock::release);
                });
            });

    /**
     * Curator's {@code InterProcessSemaphoreMutex} is an {@code InterProcessSemaphoreV2} of one lease, and hides it:
     * the semaphore itself shows which node the lease is.
     */
    static final LockKind CURATOR_SEMAPHORE_MUTEX =
            BuiltInKind.curators("curator-semaphore-mutex", LockKind.SEMAPHORE_MUTEX, false, (client, paths) -> {
                InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, paths.get(0), 1);
                return new SemaphoreContender(client, paths.get(0), 1, timeout -> {
                    Lease lease = semaphore.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    return lease == null ? null : Held.of(lease);
                });
            });

    /** Takes one lease; null if the time ran out. */
    @FunctionalInterface
    private interface Taker {
        Held take(Duration timeout) throws Exception;
    }

    /** Says who owns a held lease. */
    @FunctionalInterface
    private interface Owner {
        OptionalLong find() throws Exception;
    }

    /** Gives a lease back. */
    @FunctionalInterface
    private interface Giver {
        void giveBack() throws Exception;
    }

    /**
     * One lease held: its node, or its token and how to learn its owner; and how to give it back.
     *
     * @param node the lease node's name, whose stat gives token and owner; null if the token is known
     * @param token the lease's fencing token, when the node's name is not known
     * @param owner finds the session that owns the lease node of {@code token}, empty if it is gone
     * @param giver returns the lease
     */
    private record Held(String node, long token, Owner owner, Giver giver) {
        static Held of(Lease lease) {
            return new Held(lease.getNodeName(), 0, OptionalLong::empty, lease::close);
        }
    }

    private final CuratorFramework client;
    private final String path;
    private final int leases;
    private final Taker taker;
    private Held held;

    private SemaphoreContender(CuratorFramework client, String path, int leases, Taker taker) {
        this.client = client;
        this.path = path;
        this.leases = leases;
        this.taker = taker;
    }

    @Override
    public List<String> lockPaths() {
        return List.of(path);
    }

    @Override
    public Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception {
        held = taker.take(timeout);
        if (held == null) {
            return Optional.empty();
        }
        long token = held.token();
        OptionalLong session;
        if (held.node() == null) {
            session = held.owner().find();
        } else {
            Stat stat = Sessions.statQuietly(client, ZKPaths.makePath(path, "leases", held.node()));
            token = stat == null ? 0 : FencingToken.of(stat.getCzxid(), 0);
            session = stat == null ? OptionalLong.empty() : OptionalLong.of(stat.getEphemeralOwner());
        }
        if (session.isEmpty()) {
            return Optional.of(List.of());
        }
        SafetyMonitor.Mode mode = leases == 1 ? SafetyMonitor.Mode.EXCLUSIVE : SafetyMonitor.Mode.LEASE;
        return Optional.of(List.of(new SafetyMonitor.Claim(path, mode, token, session.getAsLong(), leases)));
    }

    @Override
    public void release() throws Exception {
        Held giving = held;
        held = null;
        giving.giver().giveBack();
    }

    @Override
    public String toString() {
        return "semaphore[" + path + ", " + leases + (leases == 1 ? " lease]" : " leases]");
    }
}
