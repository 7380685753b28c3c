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

    /**
     * @param node the node the hold stands on, tracked by the client's {@link ConnectionTracker}
     * @param pass how many holds of {@code node} came before this one
     */
    public Hold(LockNode node, int pass) {
        this(node, pass, null);
    }

    private Hold(LockNode node, int pass, Hold ranksWith) {
        this.node = node;
        this.pass = pass;
        this.ranksWith = ranksWith;
    }

    /**
     * A read hold taken beside a write hold of the same thread (a downgrade): its node ranks with the write node, and
     * its token is the write hold's. A writer queued behind the write node has a larger token; the read node's own
     * creation zxid is larger than that writer's, so a token made of it would go back at that writer's grant (found by
     * the simulator: SimulationTest, ZkReadWriteLockTest).
     */
    public static Hold beside(LockNode readNode, Hold write) {
        return new Hold(readNode, 0, write);
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

    /** The state of the hold: the node's, or null if the node was never granted. */
    public LockState state() {
        return node.state();
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
