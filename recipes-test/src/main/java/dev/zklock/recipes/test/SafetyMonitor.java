package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * Watches lock holders for the four safety properties of a lock and counts every breach: two holders inside at once
 * (readers excepted among themselves, and a semaphore's lease holders up to its lease count), a fencing token that does
 * not grow on a path, a lock node left behind after everyone is done, and a waiter that never finished.
 *
 * <p>The token rule is the one zklock documents ({@link FencingToken}): every hold has a token of its own, and tokens
 * grow; the kit makes a Curator hold's token from its node's stat (pass 0), so tokens compare across libraries on a
 * shared path. The rule is checked per path ({@code PathState}); a hold on the node of the newest hold before it (a
 * local pass, local readers on one read node, a cached node taken again) counts as a
 * {@linkplain SafetyReport#sameNodeHolds() hold on the node before}. Two holds on one node at once are an overlap.
 *
 * <p>The code under test tells the monitor what happens: {@link #enter} right after an acquire returns and
 * {@link Hold#exit()} right before the release (so a recorded hold lies inside the real one, and any overlap seen
 * really happened); {@link #startWaiting} before an acquire and {@link Waiter#finished()} after it. The fault injector
 * tells it, before they happen, of what ends holds behind the holders' backs: {@link #sessionEnded} and
 * {@link #nodeDeleted} for a stranger's delete.
 *
 * <p>A hold is what a user sees: a thread inside the critical section, from {@link #enter} to {@link Hold#exit()},
 * whatever its node's state. Two conflicting holds inside at once are an overlap the moment the second enters, each
 * reported with its cause, and classified:
 *
 * <ul>
 *   <li>{@linkplain SafetyReport#explainedOverlaps() explained} (counted with the longest, not a failure): one of the
 *       two holds was ended from outside after its grant, by a fault no lock can prevent (its session ended, or a
 *       stranger deleted its node, while it was inside, or before its thread entered while the delete was still in
 *       flight: {@link #nodeDeleteAnswered}, or after it was done but before its client heard of it: the hold's own
 *       state said HELD as it entered, {@link Claim#heldAtEntry(Optional)}). The hold ended as it entered may enter
 *       second: the holder beside it took the lock because of that end, on a client that heard of it first. Fencing
 *       tokens exist for these: such a hold's token is not checked, and may be the smaller;
 *   <li>a {@linkplain SafetyReport#overlaps() violation}: any other, a hold entered on a node a stranger had already
 *       deleted (the delete answered) ({@linkplain SafetyReport#holdsOnDeletedNodes() data} too), or on a session already ended, among them.
 * </ul>
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
     * @param heldAtEntry whether the lock's own hold state said HELD right after the acquire returned, that is its
     *     client had heard of no loss of the hold yet ({@link #heldAtEntry(Optional)}); false for a lock with no hold
     *     state (Curator's)
     */
    public record Claim(String lockPath, Mode mode, long token, long sessionId, int leases, boolean heldAtEntry) {
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
            this(lockPath, mode, token, sessionId, 1, false);
        }

        /**
         * A claim of a lock with no hold state.
         *
         * @param lockPath the lock path (a semaphore's path, for a lease)
         * @param mode what the hold claims
         * @param token the fencing token of the hold
         * @param sessionId the session that owns the hold's ephemeral node
         * @param leases for a {@link Mode#LEASE}, the most leases live at once on the path; 1 for the other modes
         */
        public Claim(String lockPath, Mode mode, long token, long sessionId, int leases) {
            this(lockPath, mode, token, sessionId, leases, false);
        }

        /**
         * Returns this claim with the hold's own state as it entered: a hold whose state said HELD then was granted on
         * what its client had heard, and its client hears of a stranger's delete of its node (the watch on its own
         * node) or of its session's end before any later answer. Take the state right after the acquire returns.
         *
         * @param state the lock's hold state for the acquiring thread
         * @return the claim, {@linkplain #heldAtEntry() held at entry} if the state is HELD
         */
        public Claim heldAtEntry(Optional<LockState> state) {
            return new Claim(
                    lockPath,
                    mode,
                    token,
                    sessionId,
                    leases,
                    state.filter(LockState.HELD::equals).isPresent());
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
    private final HoldLedger ledger = new HoldLedger(); // guarded by lock
    private final Set<Waiter> waiting = new LinkedHashSet<>(); // guarded by lock
    private long waits; // guarded by lock

    private SafetyMonitor() {}

    /** @return a new monitor, that has seen nothing yet */
    public static SafetyMonitor create() {
        return new SafetyMonitor();
    }

    /**
     * Records that {@code owner} holds {@code claim} from now on, and checks it against the holds of the path inside now:
     * any of them that conflicts with it (not both reads, not the same owner) is an overlap, explained or a violation
     * (class documentation); a token that breaks the token rule (class documentation) is a regression. A claim whose
     * session has already ended, or whose node a stranger has deleted, is recorded as lost (and as a hold on a deleted
     * node), and any overlap it takes part in is a violation; its token is not checked, nor that of a claim ended from
     * outside as it enters ({@link #nodeDeleteAnswered}, {@link #sessionEndAnswered}).
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
            ledger.enter(hold);
        }
        return hold;
    }

    /**
     * Records that the server ended {@code sessionId}: the holds of that session inside now are lost, ended from outside
     * (an overlap with them is explained), and a hold entered on it later is lost from its grant (an overlap with it is
     * a violation). Call it before the server can delete the session's nodes, that is before anyone else could take
     * their locks.
     *
     * @param sessionId the session that ended
     */
    public void sessionEnded(long sessionId) {
        synchronized (lock) {
            ledger.sessionEnded(sessionId);
        }
    }

    /**
     * Records that a stranger deletes the lock node of {@code lockPath} created at {@code creationZxid}: the holds of
     * that node inside now (those whose token has that creation zxid) are lost, ended from outside (an overlap with them
     * is explained), and any hold granted on it later is lost from its grant (an overlap with it is a violation). Call
     * it before the delete, that is before anyone else could take the lock because the node is gone.
     *
     * @param lockPath the lock path the node is a child of
     * @param creationZxid the node's creation zxid
     */
    public void nodeDeleted(String lockPath, long creationZxid) {
        Objects.requireNonNull(lockPath, "lockPath");
        synchronized (lock) {
            ledger.nodeDeleted(lockPath, creationZxid);
        }
    }

    /**
     * Records that the end of {@code sessionId} (announced by {@link #sessionEnded}) is done: until then the server may
     * end it after a grant on it, and a hold on it that enters in between is lost at once, ended from outside (an
     * overlap with it is explained), as every ZooKeeper lock's grant may come just before its session's end; one that
     * enters later is lost from its grant (an overlap with it is a violation).
     *
     * @param sessionId the session whose end is done
     */
    public void sessionEndAnswered(long sessionId) {
        synchronized (lock) {
            ledger.sessionEndAnswered(sessionId);
        }
    }

    /**
     * Records that the stranger's delete of the node of {@code lockPath} created at {@code creationZxid} (announced by
     * {@link #nodeDeleted}) has its answer. Until then the server may apply it after a grant on that node: a hold on it
     * that enters in between is lost at once, ended from outside (an overlap with it is explained, as with a hold the
     * delete found inside), since its grant may have been decided before the delete, as every ZooKeeper lock's may; one
     * that enters later is lost from its grant (an overlap with it is a violation), unless its own state said HELD as it
     * entered ({@link Claim#heldAtEntry(Optional)}): its client, which hears of the delete through the watch on its own
     * node before any later answer, had not heard of it, so the grant came from what the client knew before the delete
     * (a thread slow to run after its grant). A lock whose grant skips that voucher is found by {@code
     * StrangerDeleteTest} and by the partition rig, not here: its hold says HELD too.
     *
     * @param lockPath the lock path
     * @param creationZxid the deleted node's creation zxid
     */
    public void nodeDeleteAnswered(String lockPath, long creationZxid) {
        Objects.requireNonNull(lockPath, "lockPath");
        synchronized (lock) {
            ledger.nodeDeleteAnswered(lockPath, creationZxid);
        }
    }

    /**
     * @param lockPath the lock path
     * @return the claims of the live holds of the path now (entered, not exited, of a live session, on a node no
     *     stranger deleted), in the order they entered
     */
    public List<Claim> liveClaims(String lockPath) {
        synchronized (lock) {
            return ledger.liveClaims(lockPath);
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
     * As {@link #startWaiting(String, Collection)}, for one path.
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
            ledger.nodesLeft(lockPath, nodes);
        }
    }

    /**
     * Waits up to {@code settle} until no lock path has a child, then records what is left as
     * {@linkplain #nodesLeft left behind}. Call it when every holder and waiter is done but their clients are still
     * open (a closed session's nodes are gone whether or not the lock deleted them); give {@code settle} the time of
     * deferred background deletes and the longest {@code keepIdle} of a cached node.
     *
     * @param observer a connected client allowed to list the paths
     * @param lockPaths the lock paths to check
     * @param settle how long background deletes may take
     * @return the number of nodes left behind
     * @throws InterruptedException if interrupted while listing
     */
    public int checkNoNodesLeft(CuratorFramework observer, Collection<String> lockPaths, Duration settle)
            throws InterruptedException {
        int left = 0;
        for (Map.Entry<String, List<LockNodesLeft.Node>> entry :
                LockNodesLeft.afterSettle(observer, lockPaths, settle).entrySet()) {
            nodesLeft(entry.getKey(), LockNodesLeft.described(entry.getValue(), session -> true));
            left += entry.getValue().size();
        }
        return left;
    }

    /**
     * @return what the monitor has seen so far, every waiter not yet finished counted as stuck: take the final report
     *     when every holder and waiter is done
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
            List<String> stuck = new ArrayList<>();
            for (Waiter waiter : waiting) {
                long waitedNanos = now - waiter.startNanos;
                if (waitedNanos >= stuckAfter.toNanos()) {
                    stuck.add(String.format(
                            "stuck waiter: %s has waited %d ms for %s",
                            waiter.owner, TimeUnit.NANOSECONDS.toMillis(waitedNanos), waiter.lockPaths));
                }
            }
            return ledger.report(now, waits, stuck.size(), stuck);
        }
    }

    /** One recorded hold; {@link #exit()} it right before the release. Safe for use by multiple threads. */
    public final class Hold {
        private final String owner;
        private final Claim claim;
        String grantedLost; // guarded by lock: why the hold was lost from its grant, or null
        String endedBy; // guarded by lock: what ended the hold from outside while it was inside, or null
        private boolean exited; // guarded by lock
        boolean sameNodeAsBefore; // guarded by lock

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
                ledger.exit(this, System.nanoTime());
            }
        }

        /** Tells whether the hold's session and node stand, as far as the monitor was told. Guarded by lock. */
        boolean isLive() {
            return grantedLost == null && endedBy == null;
        }

        String owner() {
            return owner;
        }

        /**
         * @return whether the hold is on the node of the newest hold of its path before it (the same creation zxid: a
         *     local pass of a cohort lock, a cached node taken again, a read node shared by local readers)
         */
        public boolean isSameNodeAsBefore() {
            synchronized (lock) {
                return sameNodeAsBefore;
            }
        }

        /** @return what the hold claims: the claim given to {@link SafetyMonitor#enter} */
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
}
