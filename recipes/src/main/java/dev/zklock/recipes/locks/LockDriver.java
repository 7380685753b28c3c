package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.drivers.ExclusiveDriver;
import dev.zklock.recipes.locks.drivers.ReadDriver;
import dev.zklock.recipes.locks.drivers.WriteDriver;
import dev.zklock.recipes.locks.engine.NodeNames;
import java.util.Collection;
import java.util.List;

/**
 * Decides, from one listing of a lock queue, whether our node holds the lock and, if not, which node it must watch.
 *
 * <h2>Usage</h2>
 *
 * <p>The lock queue does the ZooKeeper work: it creates our node, lists the children of the lock path, asks the driver
 * to {@linkplain #sort(Collection) sort} them, and asks it to {@linkplain #decide(LockQueueView) decide}. If the answer
 * is {@link LockDecision#holds()}, the lock is ours. If it is {@link LockDecision#watch(String)}, the queue sets a
 * one-shot watch on that node and asks again when the node changes or goes. An implementation decides exactly two
 * things: the order of the children, and, in that order, the answer for our node. It must keep these rules:
 *
 * <ol>
 *   <li><b>Pure.</b> The answer depends only on the {@link LockQueueView} given: no I/O, no ZooKeeper calls, no clock,
 *       no thread-local state, no state of other locks. The same view always gets the same answer.
 *   <li><b>Only earlier nodes count.</b> The answer depends only on our node and the nodes ranked before it
 *       ({@link LockQueueView#nodesBefore()}); nodes ranked after ours never change it. A node to watch is always one of
 *       the nodes ranked before ours.
 *   <li><b>Monotone.</b> Removing any of the nodes ranked before ours never turns "holds" into "does not hold". The
 *       queue relies on this: when the watched node goes and the view without it already holds, the queue takes the
 *       lock without listing the children again (sequence numbers only grow, so no node can appear before ours). It
 *       also asks on a view of our node and the one node right before it, when that node is of the same client and
 *       nothing was created between the two: "does not hold" there means "does not hold" in the whole queue, and the
 *       node named there is watched without a listing.
 *   <li><b>The first node holds.</b> A node with no node ranked before it holds the lock.
 *   <li><b>Fast, non-blocking and thread-safe.</b> Many threads call one driver at once, on ZooKeeper's path to the
 *       lock; keep it linear in the number of children.
 * </ol>
 *
 * <p>The contract suite {@code dev.zklock.recipes.test.LockDriverContract} in the {@code zklock-recipes-test}
 * artifact checks these rules; every driver, a user's too, should extend it and pass.
 *
 * <p>The queue validates each answer: a node to watch that is not ranked before ours is rejected with an
 * {@link IllegalArgumentException} naming the node and the lock path, after our node has been deleted.
 *
 * <p>Implementations must be safe for use by multiple threads. Neither method costs a ZooKeeper call.
 *
 * @since 0.1.0
 */
public interface LockDriver {

    /**
     * Returns the built-in driver of an exclusive lock: our node holds the lock when it is first in the queue, and
     * otherwise watches the node just before it, so that one release wakes one waiter. Curator's
     * {@code InterProcessMutex} decides the same way.
     *
     * @return the shared exclusive driver
     */
    static LockDriver exclusive() {
        return ExclusiveDriver.INSTANCE;
    }

    /**
     * Returns the built-in driver of a read lock: a reader holds when no write node ({@code __WRIT__}) is ranked before
     * it, and otherwise watches the nearest write node before it, so a write release wakes exactly the readers queued
     * behind that writer.
     *
     * @return the shared read driver
     */
    static LockDriver read() {
        return ReadDriver.INSTANCE;
    }

    /**
     * Returns the built-in driver of a write lock: a writer holds when it is first, and otherwise watches the node just
     * before it; when that node is a writer, the queue lists again after it goes (see
     * {@link LockDecision#watchAndRelist(String)}).
     *
     * @return the shared write driver
     */
    static LockDriver write() {
        return WriteDriver.INSTANCE;
    }

    /**
     * Returns the children of a lock path in queue order. The default orders them as Curator does: by the sequence
     * number that ZooKeeper appended to each name (the trailing digits), a name without one by the whole name, and
     * equal keys by name.
     *
     * @param children the child names as ZooKeeper listed them, in no particular order; not modified
     * @return a new list in queue order
     */
    default List<String> sort(Collection<String> children) {
        return NodeNames.sortBySequence(children);
    }

    /**
     * Decides whether our node holds the lock.
     *
     * @param view one listing of the queue, sorted by {@link #sort(Collection)}
     * @return {@link LockDecision#holds()}, or {@link LockDecision#watch(String)} naming a node ranked before ours
     */
    LockDecision decide(LockQueueView view);
}
