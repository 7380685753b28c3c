package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.engine.Hold;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;

/**
 * When a term ends on a change of its hold's state: the one rule of the latch and the selector. Stateless; no ZooKeeper
 * call.
 *
 * <p>A term ends when its hold is LOST, and when it is IN_DOUBT (the connection suspended) unless the client's
 * {@code ConnectionStateErrorPolicy} says SUSPENDED is no error: a client built with Curator's
 * {@code SessionConnectionStateErrorPolicy} keeps its leader through a suspension, as Curator's recipes do, and its term
 * goes on if the hold is HELD again after the reconnect ({@code LeaderCuratorScenariosTest}). The step-down bound is then
 * the session's end, not the suspension; {@code hasLeadership()} is false while the hold is IN_DOUBT all the same.
 */
final class StepDown {
    private StepDown() {}

    /** Whether {@code event} ends the term held by {@code term} (null if none) on {@code client}. */
    static boolean endsTerm(LockStateEvent event, Hold term, CuratorFramework client) {
        if (term == null
                || event.state() == LockState.HELD
                || !event.node().equals(term.node().path())) {
            return false;
        }
        return event.state() != LockState.IN_DOUBT
                || client.getConnectionStateErrorPolicy().isErrorState(ConnectionState.SUSPENDED);
    }
}
