package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;

/**
 * What a fencing token is made of, for stores that check tokens and for code that reads lock nodes itself: a token is
 * the creation zxid of the hold's lock node times {@value #PASSES_PER_NODE}, plus the number of holds granted on that
 * node before this one. Without local hand-off every hold has a node of its own, so that number is zero; with it
 * ({@link ZkLockBuilder#localHandOff()}), threads of one process pass one node among themselves, and each pass adds one.
 * Either way the token grows with every exclusive or write hold of a path, across processes and the whole
 * ensemble: a later node has a larger creation zxid, and a node passes at most {@code PASSES_PER_NODE - 1} times before
 * the next holder takes a new one. The local readers of one read node hold it at once and share its token (pass 0): a
 * read hold is fenced against writers, whose tokens are larger, not against other readers. A downgrade's read hold (the
 * read lock taken by the thread that holds the write lock) carries its write hold's token: its node ranks with the
 * write node, ahead of the writers queued behind it, whose tokens are larger
 * ({@code ZkReadWriteLockTest.readLock_byTheWriter_carriesTheWriteTokenBelowTheQueuedWriters}). Static methods only; no
 * ZooKeeper call.
 *
 * <p>Why every hold has a token of its own: a fenced store rejects a write whose token is smaller than the largest it
 * has accepted, so that a write issued under an earlier hold and delayed (a pause, a retry, a slow network) cannot land
 * after a write of a later hold. Two local holders of one node are two holds: had they one token, the store could not
 * tell the earlier one's late write from the later one's.
 *
 * <p>A creation zxid carries the ensemble's leader epoch in its high 32 bits, so a token fits in a {@code long} while
 * the epoch is below 2<sup>15</sup>: 32,768 leader elections over the life of the ensemble's data (ZooKeeper also
 * starts a new epoch when the low 32 bits, its count of writes, run out). The factor trades the two: a larger one lets
 * a cohort's node pass more often before it costs a new node (a delete and a create, with their listing and watches),
 * and leaves room for fewer elections ({@code FencingTokenTest}).
 *
 * @since 0.1.0
 */
public final class FencingToken {
    /** How many holds one lock node can stand for: the factor of the creation zxid in a token. */
    public static final int PASSES_PER_NODE = 65_536;

    private static final long MAX_ZXID = Long.MAX_VALUE / PASSES_PER_NODE;

    private FencingToken() {}

    /**
     * Returns the token of a hold.
     *
     * @param creationZxid the creation zxid of the hold's lock node, positive
     * @param pass how many holds were granted on that node before this one, from 0 to {@code PASSES_PER_NODE - 1}
     * @return the token
     * @throws IllegalArgumentException if {@code creationZxid} is not positive or too large for a token, or
     *     {@code pass} is out of range
     */
    public static long of(long creationZxid, int pass) {
        Checks.requireArgument(
                creationZxid > 0 && creationZxid <= MAX_ZXID,
                "creation zxid 0x%s is out of a fencing token's range (1 to 0x%s)",
                Long.toHexString(creationZxid),
                Long.toHexString(MAX_ZXID));
        Checks.requireArgument(
                pass >= 0 && pass < PASSES_PER_NODE,
                "pass %d is out of a fencing token's range (0 to %d)",
                pass,
                PASSES_PER_NODE - 1);
        return creationZxid * PASSES_PER_NODE + pass;
    }

    /**
     * Returns the creation zxid of the lock node a token was granted on: equal for the holds of one node.
     *
     * @param token a fencing token
     * @return the node's creation zxid
     */
    public static long creationZxid(long token) {
        return token / PASSES_PER_NODE;
    }

    /**
     * Returns how many holds of the same node came before the hold of a token.
     *
     * @param token a fencing token
     * @return the pass, from 0
     */
    public static int pass(long token) {
        return (int) (token % PASSES_PER_NODE);
    }
}
