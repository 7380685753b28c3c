package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDriver;
import java.util.List;

/**
 * What vouches for a cohort's node: the listing with a child watch on the lock path (on its way, or set by a listing
 * that found the node and not yet fired), and the node's own data watch (asked for, and set by a read that found the
 * node). It answers whether a watch stands that would tell of the node's delete ({@link #confirmed}), and asks for the
 * listing and the data watch as {@link LocalCommand}s: at most one listing on its way, no child watch once a conflict
 * is known ({@link HandOffBounds}), one data watch per exclusive node; and it reads what a listing found
 * ({@link #listed}). Part of
 * the {@link LocalQueue} machine: no I/O itself (its runner sends the commands: one read each), no clock. Not
 * thread-safe: confined, as its queue is, by the {@link Cohort} runner's JVM lock.
 */
final class NodeWatches {
    /*
     * An exclusive node passes, and an idle one is taken, only while a watch stands that would tell of its delete: the
     * child watch of a listing that found it, or, once the bounds run and no child watch is kept, the node's own data
     * watch, set then (one read per node, and none for a node nobody waits for: an uncontended hold costs what a plain
     * one does). Until one stands, a release with local waiters waits for the answer on its way, or ends the node if
     * none is (LocalQueueTest; against a real server,
     * AdmissionTest.strangerDeletesTheCohortsNode_theLocalWaiterNeverHoldsBesideTheSessionThatGotIt).
     */

    private final CohortNode ours;
    private final HandOffBounds bounds;
    private final boolean shared;
    private final LockDriver driver;
    private boolean listing; // a listing with a child watch is on its way for the node
    private boolean watched; // a child watch is set for the node by a listing that found it, and has not fired
    private boolean ownSent; // the node's own data watch was asked for and has not failed
    private boolean ownSet; // ... and its read found the node: a delete of it will be told

    /** What a listing that found the lock path tells of the cohort's node. */
    enum Found {
        /** The node is not among the children: it is gone. */
        GONE,
        /** A conflicting node ranks behind ours: any, for an exclusive node; a writer's, for a read node. */
        CONFLICT_BEHIND,
        /** No conflicting node ranks behind ours. */
        CLEAR
    }

    NodeWatches(CohortNode ours, HandOffBounds bounds, boolean shared, LockDriver driver) {
        this.ours = ours;
        this.bounds = bounds;
        this.shared = shared;
        this.driver = driver;
    }

    /** Asks for a listing of the lock path with a child watch, for the cohort's node, unless one is on its way. */
    void list(List<LocalCommand> out) {
        if (!listing) {
            listing = true;
            out.add(new LocalCommand.List(ours.node()));
        }
    }

    /** Lists with the child watch unless a listing is on its way or a watch is set, and no conflict is known. */
    void watch(List<LocalCommand> out) {
        if (ours.node() != null && !bounds.conflictKnown() && !watched) {
            list(out);
        }
    }

    /** Exclusive: asks for the node's own data watch unless asked for already. */
    void watchOwn(List<LocalCommand> out) {
        if (!shared && ours.node() != null && !ownSent) {
            ownSent = true;
            out.add(new LocalCommand.WatchNode(ours.node()));
        }
    }

    /** The listing for the cohort's node answered with {@code children}: its child watch is set. */
    Found listed(List<String> children) {
        listing = false;
        watched = true;
        List<String> sorted = driver.sort(children);
        int index = sorted.indexOf(ours.node().name());
        if (index < 0) {
            return Found.GONE;
        }
        return NodeNames.conflictsBehind(sorted, index, shared) ? Found.CONFLICT_BEHIND : Found.CLEAR;
    }

    /** The listing failed: no child watch is set. */
    void listingFailed() {
        listing = false;
        watched = false;
    }

    /** The child watch fired. */
    void childrenChanged() {
        watched = false;
    }

    /**
     * The node's own data watch was set by a read that found the node.
     *
     * @return whether it was asked for (and not failed since): else the answer is stale, and ignored
     */
    boolean ownWatchSet() {
        if (ownSent) {
            ownSet = true;
        }
        return ownSent;
    }

    /** The node's own data watch failed: none stands, and none is on its way. */
    void ownWatchFailed() {
        ownSent = false;
        ownSet = false;
    }

    /** Whether a watch stands that would tell of the node's delete, set by a read that found the node. */
    boolean confirmed() {
        return watched || ownSet;
    }

    /** Whether an answer that would vouch for the node is on its way: a listing, or the own watch's read. */
    boolean answerOnItsWay() {
        return listing || ownSent;
    }

    /** Forgets the node: nothing is on its way or set for the next. */
    void clear() {
        listing = false;
        watched = false;
        ownSent = false;
        ownSet = false;
    }
}
