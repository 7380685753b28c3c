package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;

/**
 * The one place where the kit turns what a lock tells into the fencing token a {@link SafetyMonitor.Claim} carries:
 * {@link FencingToken#of FencingToken.of(czxid, pass)}, the creation zxid of the hold's node and the number of holds
 * granted on that node before, so that the tokens of zklock's locks and of Curator's compare on a shared path. Two
 * different holds never have equal tokens. Stateless but for {@link Passes}; thread-safe.
 */
final class Tokens {
    /**
     * Whether zklock's {@code fencingToken()} already gives each hold a token of its own. Issue 18: until its change to
     * the recipes lands, {@code fencingToken()} returns the bare creation zxid of the hold's node, the same for every
     * local holder of a cohort node, and the kit makes the token itself (pass 0, or the passes a cohort lock object
     * granted on the node, counted by {@link Passes}). When the change lands, set this to {@code true}: the kit then
     * takes the lock's token as it is.
     */
    static final boolean ZKLOCK_TOKENS_PER_HOLD = true;

    private Tokens() {}

    /**
     * Returns the token of a hold on a node that no other hold shares: a Curator lock's or lease's, read from the node's
     * stat.
     *
     * @param creationZxid the node's creation zxid
     * @return {@code FencingToken.of(creationZxid, 0)}
     */
    static long ofNode(long creationZxid) {
        return FencingToken.of(creationZxid, 0);
    }

    /**
     * Returns the token of a hold of a zklock lock without local hand-off, from the lock's {@code fencingToken()}.
     *
     * @param fencingToken what the lock gives
     * @return the hold's token
     */
    static long zklock(long fencingToken) {
        return ZKLOCK_TOKENS_PER_HOLD ? fencingToken : ofNode(fencingToken);
    }

    /**
     * Returns the token of a hold of a zklock cohort lock, from the lock's {@code fencingToken()}; {@code passes} is
     * told of the hold only while the lock gives the old form (see {@link #ZKLOCK_TOKENS_PER_HOLD}).
     *
     * @param fencingToken what the lock gives
     * @param passes the holds the lock object granted on its nodes so far
     * @return the hold's token
     */
    static long zklockCohort(long fencingToken, Passes passes) {
        return ZKLOCK_TOKENS_PER_HOLD ? fencingToken : FencingToken.of(fencingToken, passes.next(fencingToken));
    }

    /**
     * The holds one cohort lock object granted on its current node, for the old form of its tokens (issue 18): a cohort
     * holds one node at a time, and its exclusive holders are granted one after the other, so counting the holds in
     * the order their acquires return gives each its pass. Shared (read) holders may return out of order, and then two
     * may get one pass; reads are never compared among themselves, so their passes do not matter. Past {@code PASSES_PER_NODE - 1} passes of
     * one node (the library takes a new node before that; the old form has no bound) the count stays at the last pass.
     * Thread-safe.
     */
    static final class Passes {
        private long node; // guarded by this
        private int granted; // guarded by this

        synchronized int next(long creationZxid) {
            if (creationZxid != node) {
                node = creationZxid;
                granted = 0;
            }
            int pass = Math.min(granted, FencingToken.PASSES_PER_NODE - 1);
            granted++;
            return pass;
        }
    }
}
