package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Watches lock holders for the four safety properties of a lock and counts every breach: two live holders at once
 * (readers excepted among themselves, and a semaphore's lease holders up to its lease count), a fencing token that does
 * not grow on a path, a lock node left behind after everyone is done, and a waiter that never finished.
 *
 * <p>The token rule is the one zklock documents: every hold has a token of its own, and tokens grow. A token is
 * {@link FencingToken#of FencingToken.of(czxid, pass)}, the creation zxid of the hold's node and the number of holds
 * granted on that node before, for zklock's locks and Curator's alike (the kit makes a Curator hold's token from its
 * node's stat, pass 0), so tokens compare across libraries on a shared path. A hold whose token is not above the newest
 * token of every hold it must follow is a regression: an exclusive or write hold follows every earlier hold of its
 * path; a read or a lease need only not be below the earlier exclusive and write holds (readers and leases share, and
 * may enter in any order). A hold on the node of the newest hold before it (the same {@linkplain FencingToken#creationZxid creation
 * zxid}: a lock with local hand-off passing its node to another thread of the process with no ZooKeeper request, local
 * readers sharing one read node, a cached node taken again) counts as a {@linkplain SafetyReport#sameNodeHolds() hold
 * on the node before}, which is no violation. Two holds on one node at once are still an overlap, whoever holds.
 *
 * <p>The code under test tells the monitor what happens: {@link #enter} right after an acquire returns and
 * {@link Hold#exit()} right before the release, so that the recorded hold lies inside the real one and any overlap
 * the monitor sees really happened; {@link #startWaiting} before an acquire and {@link Waiter#finished()} after it,
 * whatever its outcome. The fault injector tells it of what ends holds behind the holders' backs, before it happens:
 * {@link #sessionEnded} for every session it ends (or closes), before the server can delete the session's nodes (from
 * then on the session's holds are no longer live: they are lost, which is not an overlap); and {@link #nodeDeleted} for
 * every lock node a stranger deletes, before the delete (from then on the holds of that node are lost, those granted
 * later included: a lock learns that a stranger took its node only when it next looks, and the monitor cannot tell
 * when that is; it counts such late grants as {@linkplain SafetyReport#holdsOnDeletedNodes() holds on deleted nodes},
 * with the longest delay, so that a lock that goes on granting a deleted node shows).
 *
 * <pre>{@code
 * SafetyMonitor monitor = SafetyMonitor.create();
 * SafetyMonitor.Waiter waiter = monitor.startWaiting("alice", lock.path());
 * boolean acquired;
 * try {
 *     acquired = lock.acquire(Duration.ofSeconds(5));
 * } finally {
 *     waiter.finished();
 * }
 * if (acquired) {
 *     SafetyMonitor.Hold hold = monitor.enter("alice", new Claim(lock.path(), Mode.EXCLUSIVE, lock.fencingToken(), session));
 *     try {
 *         work();
 *     } finally {
 *         hold.exit();
 *         lock.release();
 *     }
 * }
 * ...
 * assertThat(monitor.report().isClean()).isTrue();
 * }</pre>
 *
 * <p>Holds of one owner never conflict with each other (a writer that downgrades holds a write and a read at once);
 * give every thread or lock instance that holds on its own a name of its own. Record one hold per lock node: a
 * reentrant re-entry is not a new hold.
 *
 * <p>Safe for use by multiple threads: every method locks the monitor for a few map operations.
 */
public final class SafetyMonitor {
    private static final int FIRST_VIOLATIONS = 20;

    /** What a hold claims on its lock path. */
    public enum Mode {
        /** Excludes every other holder. */
        EXCLUSIVE,
        /** Shares the path with other readers, excludes writers and exclusive holders. */
        READ,
        /** Excludes every other holder. */
        WRITE,
        /**
         * One lease of a semaphore: shares the path with other leases, as many at once as the claim's
         * {@linkplain Claim#leases() lease count}, and excludes every other mode.
         */
        LEASE;

        /**
         * Tells whether a hold of this mode and a hold of {@code other} may be live on one path at once (for leases,
         * up to their count).
         *
         * @param other the mode of the other hold
         * @return {@code true} only for two reads, or two leases
         */
        public boolean sharesWith(Mode other) {
            return (this == READ && other == READ) || (this == LEASE && other == LEASE);
        }
    }

    /**
     * One lock path held by one holder.
     *
     * @param lockPath the lock path (a semaphore's path, for a lease)
     * @param mode what the hold claims
     * @param token the fencing token of the hold: {@link FencingToken#of FencingToken.of(czxid, pass)} of its node
     * @param sessionId the session that owns the hold's ephemeral node
     * @param leases for a {@link Mode#LEASE}, the most leases live at once on the path; 1 for the other modes
     */
    public record Claim(String lockPath, Mode mode, long token, long sessionId, int leases) {
        /**
         * Checks the claim.
         *
         * @throws NullPointerException if {@code lockPath} or {@code mode} is null
         * @throws IllegalArgumentException if {@code leases} is below 1
         */
        public Claim {
            Objects.requireNonNull(lockPath, "lockPath");
            Objects.requireNonNull(mode, "mode");
            if (leases < 1) {
                throw new IllegalArgumentException(
                        "leases of a claim on " + lockPath + " must be at least 1, not " + leases);
            }
        }

        /**
         * A claim that is not a lease: of a lock, read, write or exclusive.
         *
         * @param lockPath the lock path
         * @param mode what the hold claims
         * @param token the fencing token of the hold: {@link FencingToken#of FencingToken.of(czxid, pass)} of its node
         * @param sessionId the session that owns the hold's ephemeral node
         */
        public Claim(String lockPath, Mode mode, long token, long sessionId) {
            this(lockPath, mode, token, sessionId, 1);
        }

        /**
         * Returns a claim of one lease of a semaphore of {@code leases} leases on {@code lockPath}.
         *
         * @param lockPath the semaphore's path
         * @param token the lease's fencing token: {@link FencingToken#of FencingToken.of(czxid, 0)} of its node
         * @param sessionId the session that owns the lease node
         * @param leases the semaphore's lease count
         * @return the claim
         */
        public static Claim lease(String lockPath, long token, long sessionId, int leases) {
            return new Claim(lockPath, Mode.LEASE, token, sessionId, leases);
        }

        /**
         * Returns an exclusive claim on the session {@code client} has now. Take it right after the acquire returns, with
         * no fault in between: a session that ended and was replaced since would be the wrong one.
         *
         * @param lockPath the lock path
         * @param token the hold's fencing token
         * @param client the client that acquired
         * @return the claim
         */
        public static Claim exclusive(String lockPath, long token, CuratorFramework client) {
            return new Claim(lockPath, Mode.EXCLUSIVE, token, Sessions.current(client));
        }

        @Override
        public String toString() {
            String of = mode == Mode.LEASE ? " of " + leases : "";
            return mode + of + " token " + token + " (node 0x" + Long.toHexString(FencingToken.creationZxid(token))
                    + " pass " + FencingToken.pass(token) + ") session 0x" + Long.toHexString(sessionId);
        }
    }

    private final Object lock = new Object();

    /** Per path: holds not yet exited whose session has not ended, and the largest tokens seen. Guarded by lock. */
    private final Map<String, PathState> paths = new HashMap<>();

    private final Set<Long> endedSessions = new HashSet<>(); // guarded by lock
    private final Set<Waiter> waiting = new LinkedHashSet<>(); // guarded by lock
    private final List<String> violations = new ArrayList<>(); // guarded by lock
    private final List<String> deletedNodeHolds = new ArrayList<>(); // guarded by lock: the first of them
    private long holds; // guarded by lock
    private long lostHolds; // guarded by lock
    private long holdsOnDeletedNodes; // guarded by lock
    private long deletedNodeLagNanos; // guarded by lock: the longest from a node's delete to a hold granted on it
    private long sameNodeHolds; // guarded by lock
    private long overlaps; // guarded by lock
    private long tokenRegressions; // guarded by lock
    private long leakedNodes; // guarded by lock
    private long waits; // guarded by lock

    private SafetyMonitor() {}

    /**
     * Returns a monitor that has seen nothing yet.
     *
     * @return a new monitor
     */
    public static SafetyMonitor create() {
        return new SafetyMonitor();
    }

    /**
     * Records that {@code owner} holds {@code claim} from now on, and checks it against the live holds of the path: any
     * of them that conflicts with it (not both reads, not the same owner) is an overlap; a token not above the newest
     * token it must follow is a regression (an exclusive or write hold follows every earlier hold of the path, a read
     * or a lease must not be below any earlier write or exclusive hold). A claim whose session has already ended, or
     * whose node a stranger has deleted, is recorded as lost and checked for nothing.
     *
     * @param owner the holder's name, unique among holders that hold on their own
     * @param claim what it holds
     * @return the hold, to {@linkplain Hold#exit() exit} before the release
     */
    public Hold enter(String owner, Claim claim) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(claim, "claim");
        Hold hold = new Hold(owner, claim);
        synchronized (lock) {
            holds++;
            if (endedSessions.contains(claim.sessionId())) {
                lostHolds++;
                hold.live = false;
                return hold;
            }
            PathState state = paths.computeIfAbsent(claim.lockPath(), path -> new PathState());
            Long deletedAt = state.deletedNodes.get(FencingToken.creationZxid(claim.token()));
            if (deletedAt != null) {
                long lagNanos = System.nanoTime() - deletedAt;
                lostHolds++;
                holdsOnDeletedNodes++;
                deletedNodeLagNanos = Math.max(deletedNodeLagNanos, lagNanos);
                if (deletedNodeHolds.size() < FIRST_VIOLATIONS) {
                    deletedNodeHolds.add(String.format(
                            "hold on a deleted node of %s: %s (%s) entered %d ms after the delete",
                            claim.lockPath(), owner, claim, TimeUnit.NANOSECONDS.toMillis(lagNanos)));
                }
                hold.live = false;
                return hold;
            }
            int leases = 1;
            for (Hold other : state.live) {
                if (!other.owner.equals(owner) && !claim.mode().sharesWith(other.claim.mode())) {
                    overlaps++;
                    violation(
                            "overlap on %s: %s (%s) entered while %s (%s) held it",
                            claim.lockPath(), owner, claim, other.owner, other.claim);
                }
                leases += other.claim.mode() == Mode.LEASE ? 1 : 0;
            }
            if (claim.mode() == Mode.LEASE && leases > claim.leases()) {
                overlaps++;
                violation(
                        "too many leases on %s: %s (%s) entered as lease %d of at most %d",
                        claim.lockPath(), owner, claim, leases, claim.leases());
            }
            // Reads and leases share: they need only follow the exclusive holds, whatever order they enter in. Every
            // hold has a token of its own (a cohort's local pass adds one), so an exclusive hold must come after.
            boolean shares = claim.mode().sharesWith(claim.mode());
            long floor = shares ? state.maxExclusiveToken : state.maxToken;
            if (claim.token() < floor || (!shares && floor != 0 && claim.token() == floor)) {
                tokenRegressions++;
                violation(
                        "token regression on %s: %s (%s) entered after a hold with token %d",
                        claim.lockPath(), owner, claim, floor);
            }
            if (state.maxToken != 0
                    && FencingToken.creationZxid(claim.token()) == FencingToken.creationZxid(state.maxToken)) {
                sameNodeHolds++;
                hold.sameNodeAsBefore = true;
            }
            state.maxToken = Math.max(state.maxToken, claim.token());
            if (!claim.mode().sharesWith(claim.mode())) {
                state.maxExclusiveToken = Math.max(state.maxExclusiveToken, claim.token());
            }
            state.live.add(hold);
        }
        return hold;
    }

    /**
     * Records that the server ended {@code sessionId}: the holds of that session are lost from now on, not live. Call
     * it before the server can delete the session's nodes, that is before anyone else could take their locks.
     *
     * @param sessionId the session that ended
     */
    public void sessionEnded(long sessionId) {
        synchronized (lock) {
            if (!endedSessions.add(sessionId)) {
                return;
            }
            for (PathState state : paths.values()) {
                for (Hold hold : state.live) {
                    if (hold.claim.sessionId() == sessionId) {
                        hold.live = false;
                        lostHolds++;
                    }
                }
                state.live.removeIf(hold -> !hold.live);
            }
        }
    }

    /**
     * Records that a stranger deletes the lock node of {@code lockPath} created at {@code creationZxid}: the holds of
     * that node (those whose token has that creation zxid) are lost from now on, not live, and so is any hold granted
     * on it later. Call it before the delete, that is before anyone else could take the lock because the node is gone.
     *
     * @param lockPath the lock path the node is a child of
     * @param creationZxid the node's creation zxid
     */
    public void nodeDeleted(String lockPath, long creationZxid) {
        Objects.requireNonNull(lockPath, "lockPath");
        synchronized (lock) {
            PathState state = paths.computeIfAbsent(lockPath, path -> new PathState());
            if (state.deletedNodes.putIfAbsent(creationZxid, System.nanoTime()) != null) {
                return;
            }
            for (Hold hold : state.live) {
                if (FencingToken.creationZxid(hold.claim.token()) == creationZxid) {
                    hold.live = false;
                    lostHolds++;
                }
            }
            state.live.removeIf(hold -> !hold.live);
        }
    }

    /**
     * Returns the live holds of a path now: entered, not exited, of a session that has not ended and on a node no
     * stranger deleted.
     *
     * @param lockPath the lock path
     * @return the claims of the live holds, in the order they entered
     */
    public List<Claim> liveClaims(String lockPath) {
        synchronized (lock) {
            PathState state = paths.get(lockPath);
            return state == null
                    ? List.of()
                    : state.live.stream().map(hold -> hold.claim).toList();
        }
    }

    /**
     * Records that {@code owner} starts an acquire of {@code lockPaths}; it is stuck until {@link Waiter#finished()}.
     *
     * @param owner the waiter's name
     * @param lockPaths the paths it waits for
     * @return the waiter, to finish whatever the outcome of the acquire
     */
    public Waiter startWaiting(String owner, Collection<String> lockPaths) {
        Waiter waiter = new Waiter(Objects.requireNonNull(owner, "owner"), List.copyOf(lockPaths));
        synchronized (lock) {
            waits++;
            waiting.add(waiter);
        }
        return waiter;
    }

    /**
     * Records that {@code owner} starts an acquire of {@code lockPath}; see {@link #startWaiting(String, Collection)}.
     *
     * @param owner the waiter's name
     * @param lockPath the path it waits for
     * @return the waiter, to finish whatever the outcome of the acquire
     */
    public Waiter startWaiting(String owner, String lockPath) {
        return startWaiting(owner, List.of(lockPath));
    }

    /**
     * Records lock nodes that were left behind under {@code lockPath} after every holder and waiter was done.
     *
     * @param lockPath the lock path
     * @param nodes descriptions of the nodes left (their names, and their owner if known)
     */
    public void nodesLeft(String lockPath, Collection<String> nodes) {
        synchronized (lock) {
            for (String node : nodes) {
                leakedNodes++;
                violation("node left behind under %s: %s", lockPath, node);
            }
        }
    }

    /**
     * Waits up to {@code settle} until no lock path has a child, then records what is left as
     * {@linkplain #nodesLeft left behind}. Call it when every holder and waiter is done but their clients are still
     * open: once a session is closed, its nodes are gone whether or not the lock deleted them. Background deletes that a
     * lost connection deferred get {@code settle} to land, and so do cached nodes (a lock's {@code keepIdle}), which
     * are live lock nodes until their time ends: give {@code settle} the longest keepIdle on top. A node still there
     * after {@code settle}, cached or not, is left behind.
     *
     * @param observer a connected client allowed to list the paths
     * @param lockPaths the lock paths to check
     * @param settle how long background deletes may take
     * @return the number of nodes left behind
     * @throws InterruptedException if interrupted while listing
     */
    public int checkNoNodesLeft(CuratorFramework observer, Collection<String> lockPaths, Duration settle)
            throws InterruptedException {
        Map<String, List<String>> left = Poll.until(settle, () -> Optional.of(nodesUnder(observer, lockPaths))
                        .filter(Map::isEmpty))
                .orElseGet(() -> nodesUnderQuietly(observer, lockPaths));
        left.forEach(this::nodesLeft);
        return left.values().stream().mapToInt(List::size).sum();
    }

    /**
     * Returns what the monitor has seen so far; every waiter not yet finished counts as stuck. Take the final report when
     * every holder and waiter is done.
     *
     * @return the counts and the first violations
     */
    public SafetyReport report() {
        return report(Duration.ZERO);
    }

    /**
     * Returns what the monitor has seen so far, counting as stuck only the waiters that have waited longer than
     * {@code stuckAfter}: for progress reports while the code under test still runs.
     *
     * @param stuckAfter how long a waiter may wait before it counts as stuck
     * @return the counts and the first violations
     */
    public SafetyReport report(Duration stuckAfter) {
        long now = System.nanoTime();
        synchronized (lock) {
            List<String> found = new ArrayList<>(violations);
            long stuck = 0;
            for (Waiter waiter : waiting) {
                long waitedNanos = now - waiter.startNanos;
                if (waitedNanos >= stuckAfter.toNanos()) {
                    stuck++;
                    if (found.size() < FIRST_VIOLATIONS) {
                        found.add(String.format(
                                "stuck waiter: %s has waited %d ms for %s",
                                waiter.owner, TimeUnit.NANOSECONDS.toMillis(waitedNanos), waiter.lockPaths));
                    }
                }
            }
            return new SafetyReport(
                    holds,
                    lostHolds,
                    holdsOnDeletedNodes,
                    Duration.ofNanos(deletedNodeLagNanos),
                    deletedNodeHolds,
                    sameNodeHolds,
                    waits,
                    overlaps,
                    tokenRegressions,
                    leakedNodes,
                    stuck,
                    found);
        }
    }

    private void violation(String format, Object... args) {
        if (violations.size() < FIRST_VIOLATIONS) {
            violations.add(String.format(format, args));
        }
    }

    private static Map<String, List<String>> nodesUnder(CuratorFramework observer, Collection<String> lockPaths)
            throws InterruptedException {
        Map<String, List<String>> left = new HashMap<>();
        try {
            for (String lockPath : lockPaths) {
                List<String> described = new ArrayList<>();
                for (String child : childrenOf(observer, lockPath)) {
                    Stat stat = observer.checkExists().forPath(ZKPaths.makePath(lockPath, child));
                    if (stat != null) {
                        described.add(child + " (session 0x" + Long.toHexString(stat.getEphemeralOwner()) + ")");
                    }
                }
                if (!described.isEmpty()) {
                    left.put(lockPath, described);
                }
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the lock nodes under " + lockPaths, e);
        }
        return left;
    }

    private static Map<String, List<String>> nodesUnderQuietly(
            CuratorFramework observer, Collection<String> lockPaths) {
        try {
            return nodesUnder(observer, lockPaths);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing the lock nodes under " + lockPaths, e);
        }
    }

    private static List<String> childrenOf(CuratorFramework observer, String lockPath) throws Exception {
        try {
            return observer.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException gone) {
            return List.of();
        }
    }

    /** One recorded hold; {@link #exit()} it right before the release. Safe for use by multiple threads. */
    public final class Hold {
        private final String owner;
        private final Claim claim;
        private boolean live = true; // guarded by lock
        private boolean exited; // guarded by lock
        private boolean sameNodeAsBefore; // guarded by lock

        private Hold(String owner, Claim claim) {
            this.owner = owner;
            this.claim = claim;
        }

        /**
         * Records that the hold ends now, right before its release.
         *
         * @throws IllegalStateException if the hold already exited
         */
        public void exit() {
            synchronized (lock) {
                if (exited) {
                    throw new IllegalStateException("hold of " + owner + " on " + claim.lockPath() + " exited twice");
                }
                exited = true;
                if (live) {
                    live = false;
                    paths.get(claim.lockPath()).live.remove(this);
                }
            }
        }

        /**
         * Tells whether the hold is on the node of the newest hold of its path before it (a local pass of a cohort
         * lock, a cached node taken again, or a read node shared by local readers).
         *
         * @return {@code true} if the token's creation zxid equals that of the newest token seen on the path when the
         *     hold entered
         */
        public boolean isSameNodeAsBefore() {
            synchronized (lock) {
                return sameNodeAsBefore;
            }
        }

        /**
         * Returns what the hold claims.
         *
         * @return the claim given to {@link SafetyMonitor#enter}
         */
        public Claim claim() {
            return claim;
        }

        @Override
        public String toString() {
            return owner + " holds " + claim.lockPath() + " (" + claim + ")";
        }
    }

    /** One acquire in progress; {@link #finished()} it whatever the outcome. Safe for use by multiple threads. */
    public final class Waiter {
        private final String owner;
        private final List<String> lockPaths;
        private final long startNanos = System.nanoTime();

        private Waiter(String owner, List<String> lockPaths) {
            this.owner = owner;
            this.lockPaths = lockPaths;
        }

        /** Records that the acquire returned or threw; calling it again does nothing. */
        public void finished() {
            synchronized (lock) {
                waiting.remove(this);
            }
        }

        @Override
        public String toString() {
            return owner + " waits for " + lockPaths;
        }
    }

    /** The live holds, the largest tokens and the nodes strangers deleted (with when) of one path. */
    private static final class PathState {
        final List<Hold> live = new ArrayList<>();
        final Map<Long, Long> deletedNodes = new HashMap<>();
        long maxToken;
        long maxExclusiveToken;
    }
}
