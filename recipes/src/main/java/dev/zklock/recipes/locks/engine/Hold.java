package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;

/**
 * One hold of a lock: the node it stands on, and how many holds of that node came before it (the local passes of a
 * cohort; zero for a node of its own). Its fencing token is made of the two ({@link FencingToken}), but for a
 * downgrade's read hold, which carries its write hold's ({@link #beside}); its state is the node's, for every hold of
 * the node stands or falls with it. Its node, pass and token never change; safe for use by multiple threads; no operation
 * makes a ZooKeeper call.
 *
 * <p>A node's first hold, with nothing to record and granted to the thread that queued it, is the node itself ({@link
 * LockNode}): a held lock costs no object for its hold. Every other hold (a cohort's pass, a read join or an idle node
 * handed to a thread that took no node, a downgrade's read hold, a hold with its JFR event or trace spans) is a {@link
 * PassHold}.
 */
public sealed interface Hold permits LockNode, PassHold {
    /**
     * The hold of {@code node} after {@code pass} others: the node itself for its first.
     *
     * @param node the node the hold stands on, tracked by the client's {@link ConnectionTracker}
     * @param pass how many holds of {@code node} came before this one
     * @throws IllegalArgumentException if {@code pass} is negative
     */
    static Hold of(LockNode node, int pass) {
        return pass == 0 ? node : new PassHold(node, pass, null, false, null);
    }

    /**
     * A read hold taken beside a write hold of the same thread (a downgrade): its node ranks with the write node, and
     * its token is the write hold's. A writer queued behind the write node has a larger token; the read node's own
     * creation zxid is larger than that writer's, so a token made of it would go back at that writer's grant (found by
     * the simulator: SimulationTest, ZkReadWriteLockTest).
     */
    static Hold beside(LockNode readNode, Hold write) {
        return new PassHold(readNode, 0, write, false, null);
    }

    /** The node the hold stands on. */
    LockNode node();

    /** How many holds of the node came before this one. */
    int pass();

    /**
     * The fencing token: larger for every later hold of the lock path, across processes and the ensemble.
     *
     * @throws dev.zklock.recipes.locks.ZkLockException if the node's create reply is not handed over within one
     *     request timeout ({@link LockNode#czxid()})
     */
    long token();

    /** The state of the hold: the node's as a holder reads it ({@link LockNode#observedState()}), or null if the node was never granted. */
    LockState state();

    /**
     * How long ago the node was granted: the hold's time for a node of its own (an owner that passes a node locally
     * keeps its own clock, as per-thread hold counts do).
     */
    long heldNanos();
}
