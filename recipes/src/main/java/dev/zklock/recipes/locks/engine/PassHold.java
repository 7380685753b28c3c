package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;

/**
 * A hold that is not its node's plain first hold ({@link Hold}): a cohort's pass, a hold the cohort granted to a thread
 * that took no node (a read join, an idle node), a downgrade's read hold, or any hold with a record of its JFR event and
 * trace spans. Immutable; safe for use by multiple threads; no operation makes a ZooKeeper call.
 */
final class PassHold implements Hold {
    private final LockNode node;
    private final int pass;
    private final Hold ranksWith; // a downgrade's write hold, whose token it carries; else null
    private final boolean local; // granted by the cohort to a thread that took no node (a pass, a join, an idle node)
    private final HoldRecord record; // its JFR event and trace spans; null when nothing records it

    PassHold(LockNode node, int pass, Hold ranksWith, boolean local, HoldRecord record) {
        if (pass < 0) {
            throw new IllegalArgumentException("pass " + pass + " of node " + node + " is negative");
        }
        this.node = node;
        this.pass = pass;
        this.ranksWith = ranksWith;
        this.local = local;
        this.record = record;
    }

    /**
     * A hold the cohort granted to a thread that took no node of its own: a local pass, a read join, an idle node.
     *
     * @param pass how many holds of {@code node} came before this one
     */
    static Hold local(LockNode node, int pass) {
        return new PassHold(node, pass, null, true, null);
    }

    /** {@code hold}, with {@code record} to end at its release. */
    static Hold recorded(Hold hold, HoldRecord record) {
        return hold instanceof PassHold kept
                ? new PassHold(kept.node, kept.pass, kept.ranksWith, kept.local, record)
                : new PassHold(hold.node(), hold.pass(), null, false, record);
    }

    /** Tells whether the cohort granted {@code hold} to a thread that took no node of its own (local hand-off). */
    static boolean isLocal(Hold hold) {
        return hold instanceof PassHold kept && kept.local;
    }

    /** The record of {@code hold}'s JFR event and trace spans, or null. */
    static HoldRecord recordOf(Hold hold) {
        return hold instanceof PassHold kept ? kept.record : null;
    }

    @Override
    public LockNode node() {
        return node;
    }

    @Override
    public int pass() {
        return pass;
    }

    @Override
    public long token() {
        return ranksWith != null ? ranksWith.token() : FencingToken.of(node.czxid(), pass);
    }

    @Override
    public LockState state() {
        return node.observedState();
    }

    @Override
    public long heldNanos() {
        return node.heldNanos();
    }

    @Override
    public String toString() {
        return pass == 0 ? node.toString() : node + " pass " + pass;
    }
}
