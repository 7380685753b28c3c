package dev.zklock.recipes.locks.engine;

import java.util.List;
import org.apache.curator.utils.ZKPaths;

/**
 * What an {@link Acquisition} asks its runner to do next. Immutable values; each runner does them its own way
 * (blocking on the caller's thread, or with callbacks), and reports back with an {@link Event}.
 */
public sealed interface Command {
    /** Nothing to do now: wait for the reply, wake-up or deadline already under way. */
    record Await() implements Command {}

    /**
     * Create our node in every queue (one create, or one transaction for several) named {@code prefix} plus the
     * sequence, or, with {@code alongsideSequence}, a plain ephemeral node carrying that sequence; and list every queue
     * pipelined behind it on the same session, unless {@link Acquisition#listsBehindCreate} says the create goes alone.
     */
    record Create(String prefix, String alongsideSequence) implements Command {}

    /**
     * Create {@code count} lease nodes named {@code prefix} plus the sequence (one create, or one transaction for
     * several) on the session that holds the semaphore's internal mutex, and list the leases pipelined behind it, with
     * a child watch if {@code watch}.
     */
    record CreateLeases(String prefix, int count, boolean watch) implements Command {}

    /** List the leases on the current session, with a child watch if {@code watch}. */
    record ListLeases(boolean watch) implements Command {}

    /**
     * The lease acquisition lost its place with the session that held the internal mutex: delete {@code nodes} (what
     * may be left of ours), sweep for {@code sweepPrefix} unless it is null, release the mutex and take it again.
     */
    record Restart(List<LockNode> nodes, String sweepPrefix) implements Command {}

    /** Make the lock paths as containers, then report {@link Event.ParentsMade}. */
    record MakeParents() implements Command {}

    /** List queue {@code queue} on the current session. */
    record ListQueue(int queue) implements Command {}

    /** After a lost create reply: wait for a connection, sync, and list every queue to find {@code prefix}. */
    record Recover(String prefix) implements Command {}

    /** Read the stat of node {@code name} in queue {@code queue}, to see whether our session owns it. */
    record CheckOwner(int queue, String name) implements Command {}

    /**
     * Set a data watch on the node at {@code path} (namespace-fixed) in queue {@code queue}, then wait for it to fire.
     * With {@code vouch}, the acquisition would take the lock without a listing when that node goes: first set a data
     * watch on our own node in that queue too, unless one set before still vouches ({@link OwnNodeWatch}), and tell
     * whether it vouches with the news ({@link Event.WatchedGone}, {@link Event.Woken}), or {@link Event.OwnGone}. The
     * path is the one string of the watched node that a waiting thread keeps: the machine's verdict, the watcher and
     * ZooKeeper's client (its key for the watch) share it. {@code ownAhead} is that node when it is a node of this client
     * right before ours (its own watch can tell the waiter, with no request: {@link NodeWatcher#setOn}), else null.
     */
    record Watch(int queue, String path, boolean vouch, LockNode ownAhead) implements Command {
        /** A watch on a node not known to be of this client. */
        public Watch(int queue, String path, boolean vouch) {
            this(queue, path, vouch, null);
        }

        /** The watched node's name: made on each call. */
        public String name() {
            return ZKPaths.getNodeFromPath(path);
        }
    }

    /** Delete {@code nodes} (our place, lost), then report {@link Event.Deleted}. */
    record Delete(List<LockNode> nodes) implements Command {}

    /**
     * The end: the acquisition holds {@code nodes}, one per queue; {@code front} marks those granted from the front;
     * {@code seenBeforeAWait}: some were last seen standing before the acquisition waited on another queue (a multi-lock
     * that waited), so admission waits for their own watches' first replies ({@link Admission}).
     */
    record Granted(List<LockNode> nodes, List<Boolean> front, boolean seenBeforeAWait) implements Command {
        /** A grant of nodes all seen standing at the grant. */
        public Granted(List<LockNode> nodes, List<Boolean> front) {
            this(nodes, front, false);
        }
    }

    /**
     * The end without the lock: delete {@code nodes}, remove the watch if one is set, and sweep the queues for
     * {@code sweepPrefix} (a create whose reply was lost) unless it is null. {@code failure} is null for a timeout or an
     * interrupt, else the error to throw.
     */
    record GiveUp(List<LockNode> nodes, String sweepPrefix, RuntimeException failure) implements Command {}

    /** Cleanup after the end, for a late reply: delete {@code nodes} and sweep for {@code sweepPrefix} if not null. */
    record CleanUp(List<LockNode> nodes, String sweepPrefix) implements Command {}
}
