package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;

/**
 * One hold of a lock: the node it stands on, and how many holds of that node came before it (the local passes of a
 * cohort; zero for a node of its own). Its fencing token is made of the two ({@link FencingToken}), but for a
 * downgrade's read hold, which carries its write hold's ({@link #beside}); its state is the node's, for every hold of
 * the node stands or falls with it. Immutable; safe for use by multiple threads.
 */
public final class Hold {
    private final LockNode node;
    private final int pass;
    private final Hold ranksWith; // a downgrade's write hold, whose token it carries; else null
    private final boolean local; // granted by the cohort to a thread that took no node (a pass, a join, an idle node)
    private final HoldRecord record; // its JFR event and trace spans; null when nothing records it

    /**
     * @param node the node the hold stands on, tracked by the client's {@link ConnectionTracker}
     * @param pass how many holds of {@code node} came before this one
     */
    public Hold(LockNode node, int pass) {
        this(node, pass, null, false, null);
    }

    private Hold(LockNode node, int pass, Hold ranksWith, boolean local, HoldRecord record) {
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
        return new Hold(node, pass, null, true, null);
    }

    /**
     * A read hold taken beside a write hold of the same thread (a downgrade): its node ranks with the write node, and
     * its token is the write hold's. A writer queued behind the write node has a larger token; the read node's own
     * creation zxid is larger than that writer's, so a token made of it would go back at that writer's grant (found by
     * the simulator: SimulationTest, ZkReadWriteLockTest).
     */
    public static Hold beside(LockNode readNode, Hold write) {
        return new Hold(readNode, 0, write, false, null);
    }

    /** This hold, with {@code record} to end at its release. */
    Hold recorded(HoldRecord record) {
        return new Hold(node, pass, ranksWith, local, record);
    }

    /** Tells whether the cohort granted the hold to a thread that took no node of its own (local hand-off). */
    boolean isLocal() {
        return local;
    }

    /** The record of its JFR event and trace spans, or null. */
    HoldRecord record() {
        return record;
    }

    /** The node the hold stands on. */
    public LockNode node() {
        return node;
    }

    /** How many holds of the node came before this one. */
    public int pass() {
        return pass;
    }

    /**
     * The fencing token: larger for every later hold of the lock path, across processes and the ensemble.
     *
     * @throws dev.zklock.recipes.locks.ZkLockException if the node's create reply is not handed over within one
     *     request timeout ({@link LockNode#czxid()})
     */
    public long token() {
        return ranksWith != null ? ranksWith.token() : FencingToken.of(node.czxid(), pass);
    }

    /** The state of the hold: the node's as a holder reads it ({@link LockNode#observedState()}), or null if the node was never granted. */
    public LockState state() {
        return node.observedState();
    }

    /**
     * How long ago the node was granted: the hold's time for a node of its own (an owner that passes a node locally
     * keeps its own clock, as per-thread hold counts do).
     */
    public long heldNanos() {
        return node.heldNanos();
    }

    @Override
    public String toString() {
        return pass == 0 ? node.toString() : node + " pass " + pass;
    }
}
