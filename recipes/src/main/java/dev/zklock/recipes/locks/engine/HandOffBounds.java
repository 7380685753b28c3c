package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;

/**
 * The passes of a cohort's node and the bounds of its local hand-off: how many holds the node has granted (which make
 * their fencing tokens), whether a conflicting node is known behind it and, from then, how many passes and how much
 * time are left, whether a revocation was asked for, and the read nodes held beside it. From these it answers the
 * rules of a grant with no request: may the node grant again, pass to the next local waiter, be taken at once, be kept
 * idle. Part of the {@link LocalQueue} machine: no I/O, no clock (the machine is told the time), no ZooKeeper round
 * trip. Not thread-safe: confined, as its queue is, by the {@link Cohort} runner's JVM lock.
 */
final class HandOffBounds {
    /*
     * Bounded unfairness: while the cohort cares (a local waiter, a shared node, an idle node) its queue keeps a child
     * watch on the lock path, set with a listing. Once a listing shows a conflicting node behind ours (any, exclusive;
     * a writer's, shared), the node passes at most maxPasses times and for maxTime, then goes, and the first waiter
     * leads the rest to a new one at the back. Readers stop joining at once (LocalQueueTest, CohortLockTest).
     *
     * Each pass of an exclusive node counts, which makes the hold's fencing token (FencingToken): a node passes at most
     * PASSES_PER_NODE - 1 times, then goes. The readers of one read node hold at once and share its token (0): a read
     * hold is fenced against writers, not other readers.
     *
     * A revocation request ends local passing. A write node with a read node beside it (a downgrade) never passes and
     * is never kept idle: the read node ranks with it, so the next local writer would hold beside a reader.
     */

    private final boolean shared;
    private final int maxPasses;
    private final long maxTimeNanos;

    private int passes; // holds granted on the node so far
    private boolean conflict; // a conflicting node is known behind the node: the bounds run, from then, for passes
    private long conflictSince;
    private int passesInConflict;
    private boolean revoked;
    private int beside; // read nodes held beside the node (downgrades)

    HandOffBounds(CohortSettings settings, boolean shared) {
        this.shared = shared;
        this.maxPasses = settings.maxPasses();
        this.maxTimeNanos = settings.maxTimeNanos();
    }

    /** The node was taken: its first hold is granted (pass 0). */
    void taken() {
        passes = 1;
    }

    /** Counts one more hold of the node and returns its pass: the next for an exclusive node, 0 for a read node. */
    int nextPass() {
        return shared ? 0 : passes++;
    }

    /**
     * A hold after {@code pass} others was released: holds the gate passed on its own ({@link PassGate}) count from
     * now on, so the next grant's pass comes after theirs.
     */
    void released(int pass) {
        passes = Math.max(passes, pass + 1);
    }

    /**
     * Exclusive: whether the node may pass with nothing counted against the bounds, as the cohort's gate passes it on
     * its own: no conflict known, not revoked, passes left, no read node beside it.
     */
    boolean passesFreely() {
        return !shared && !conflict && mayGrantMore() && beside == 0;
    }

    /** Counts a pass to a local waiter against the bounds, once they run. */
    void passed() {
        if (conflict) {
            passesInConflict++;
        }
    }

    /**
     * A listing found a conflicting node behind ours: the bounds run from {@code now}.
     *
     * @return whether this is news (no conflict was known)
     */
    boolean conflictFound(long now) {
        if (conflict) {
            return false;
        }
        conflict = true;
        conflictSince = now;
        passesInConflict = 0;
        return true;
    }

    /** A revocation was asked for: the node grants no more. */
    void revoke() {
        revoked = true;
    }

    /** A read node beside the node was taken ({@code delta} 1) or let go (-1). */
    void besideChanged(int delta) {
        beside += delta;
    }

    /** Whether a conflicting node is known behind the node: the bounds run. */
    boolean conflictKnown() {
        return conflict;
    }

    /** Whether the node may grant another hold: not revoked, and (exclusive) passes left for a fencing token. */
    boolean mayGrantMore() {
        return !revoked && (shared || passes < FencingToken.PASSES_PER_NODE);
    }

    /** Whether the node, with no conflict known, may take more holders: readers joining, a pass, an idle keep. */
    boolean isOpen() {
        return !conflict && mayGrantMore();
    }

    /**
     * Whether an acquire may take the node at once, with nobody waiting before it: readers while joins are open, an
     * exclusive node while nobody holds it (nor a read node beside it).
     */
    boolean mayTakeAtOnce(int holders, boolean joinable) {
        if (!isOpen()) {
            return false;
        }
        return shared ? joinable : holders == 0 && beside == 0;
    }

    /** Whether the last release may keep the node idle (its time allowing). */
    boolean mayKeepIdle() {
        return isOpen() && beside == 0;
    }

    /** Exclusive: whether a release may pass the node to the next local waiter at {@code now}. */
    boolean mayPass(long now) {
        if (shared || !mayGrantMore() || beside > 0) {
            return false;
        }
        return !conflict || (passesInConflict < maxPasses && now - conflictSince < maxTimeNanos);
    }

    /** Forgets the node: the next starts with no passes, no conflict, no revocation, nothing beside. */
    void clear() {
        passes = 0;
        conflict = false;
        passesInConflict = 0;
        revoked = false;
        beside = 0;
    }
}
