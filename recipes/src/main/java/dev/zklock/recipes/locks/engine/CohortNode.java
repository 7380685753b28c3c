package dev.zklock.recipes.locks.engine;

import java.util.List;

/**
 * The life of a cohort's node, from the lead's take to its end: the node, its local holders, whether it is kept idle,
 * and, once let go, the nodes still held ({@link RetiredNodes}). It grants holds on the node, counts their releases,
 * keeps it idle and cancels the keep, and ends it: at once if nobody holds it, else with its last holder. When to do
 * which is its {@link LocalQueue}'s to decide. Part of that machine: no I/O itself (its runner carries out the
 * {@link LocalCommand}s: a delete for an end, a timer for an idle keep), no clock. Not thread-safe: confined, as its
 * queue is, by the {@link Cohort} runner's JVM lock.
 */
final class CohortNode {
    private final long keepIdleNanos;
    private final RetiredNodes retired = new RetiredNodes();
    private LockNode node; // the cohort's node, or null
    private int holders; // local holders of node
    private boolean idle; // node is kept idle, its expiry scheduled

    CohortNode(CohortSettings settings) {
        this.keepIdleNanos = settings.keepIdleNanos();
    }

    /** The cohort's node, or null when it has none. */
    LockNode node() {
        return node;
    }

    /** Whether {@code other} is the cohort's node. */
    boolean is(LockNode other) {
        return other == node;
    }

    /** The local holders of the node. */
    int holders() {
        return holders;
    }

    /** The leader took {@code taken}, and holds it. */
    void take(LockNode taken) {
        node = taken;
        holders = 1;
    }

    /** Grants {@code waiter} a hold of the node with {@code pass}. */
    void grant(LocalWaiter waiter, int pass) {
        waiter.grant(node, pass);
        holders++;
    }

    /** Grants {@code waiter} a hold of the node with {@code pass}, and has it woken. */
    void grantAndWake(LocalWaiter waiter, int pass, List<LocalCommand> out) {
        grant(waiter, pass);
        out.add(new LocalCommand.Wake(waiter));
    }

    /** Grants the hold with {@code pass} to the first thread queued at the cohort's gate ({@link PassGate}). */
    void grantAtGate(int pass, List<LocalCommand> out) {
        holders++;
        out.add(new LocalCommand.PassAtGate(node, pass));
    }

    /** A holder released, or its grant was lost: returns the holders left. */
    int holderGone() {
        return --holders;
    }

    /** A holder of {@code released}, a node no longer the cohort's, released: it ends with its last holder. */
    void retiredReleased(LockNode released, List<LocalCommand> out) {
        retired.released(released, out);
    }

    /** Whether a node let go is still held. */
    boolean hasRetired() {
        return !retired.isEmpty();
    }

    /** Whether an idle time is set: else the last release ends the node at once. */
    boolean keepsIdle() {
        return keepIdleNanos > 0;
    }

    /** Keeps the node idle for the idle time. */
    void keepIdle(List<LocalCommand> out) {
        idle = true;
        out.add(new LocalCommand.KeepIdle(node, keepIdleNanos));
    }

    /** Whether an idle keep is scheduled. */
    boolean isKeptIdle() {
        return idle;
    }

    /** The idle keep's timer has run. */
    void idleExpired() {
        idle = false;
    }

    /** Cancels the idle keep, if one is scheduled. */
    void cancelIdle(List<LocalCommand> out) {
        if (idle) {
            idle = false;
            out.add(new LocalCommand.CancelIdle());
        }
    }

    /** Lets the node go with its holds over: ended now if nobody holds it, else when its last holder releases. */
    void end(List<LocalCommand> out) {
        LockNode ended = node;
        int left = holders;
        cancelIdle(out);
        node = null;
        holders = 0;
        if (left == 0) {
            out.add(new LocalCommand.End(ended));
        } else {
            retired.retire(ended, left);
        }
    }
}
