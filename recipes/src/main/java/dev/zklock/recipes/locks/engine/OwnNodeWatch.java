package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The data watch of a lock node on itself: what vouches, when the node ahead goes and the lock is taken with no listing,
 * that our node still stands, and, once the lock is held, what hears a stranger delete it. Safe for use by multiple
 * threads.
 *
 * <p>A node can be deleted from outside (an operator's cleanup, a reaper, a client with an open ACL). A waiter that
 * trusted the delete of the node ahead alone would then hold beside the session that queued after the delete; Curator's
 * waiter lists the queue on every wake-up and notices, at the cost of a listing per hand-off. This watch costs one read,
 * sent right before the watch on the node ahead on the same session, so it adds no round trip: ZooKeeper answers one
 * session's requests in order and delivers its watch events in the order of the changes, so when the node ahead's
 * delete is told, this watch's reply has come and, had our node gone first, its delete was told first too
 * ({@code StrangerDeleteTest}). Its states:
 *
 * <ul>
 *   <li>none until a watch is first set ({@link LockNode#ownWatch()} is then null);
 *   <li>PENDING until the read's reply; STANDS once it found the node (the watch is set);
 *   <li>GONE once the read found no node or the watch saw it deleted: the waiter is woken ({@link NodeWatcher.Wake#OWN_GONE})
 *       and enters again; a hold already tracked is made LOST ({@link ConnectionTracker#lose}), and one not yet tracked
 *       starts LOST ({@link LockNode#isDeletedOutside()}). Final: no read is sent again;
 *   <li>SPENT when the watch fired for a data change (a revocation request, say), FAILED when the read failed: it
 *       vouches no more, and a grant then lists the queue first. Setting the watch again sends a new read.
 * </ul>
 *
 * <p>The watch is the node itself, the superclass of {@link LockNode}: a held lock keeps no object for it beyond the
 * node's three fields. ZooKeeper's client keeps one registration per watcher and path and drops it when it fires or its
 * read fails, and a new read is sent only once the last one has answered and its watch is no longer set (SPENT or
 * FAILED), so the one object is never registered twice and an old registration never answers for a new read.
 *
 * <p>Once the lock is held the watch stays: our own release deletes the node after it stops tracking the hold, which
 * fires the watch with nothing left to tell, so the watch costs no request to remove.
 */
abstract sealed class OwnNodeWatch implements Watcher, AsyncCallback.DataCallback permits LockNode {
    enum Status {
        PENDING,
        STANDS,
        GONE,
        SPENT,
        /** The read failed (the connection dropped, the session ended): it vouches for nothing. */
        FAILED
    }

    private static final AtomicReferenceFieldUpdater<OwnNodeWatch, Status> STATUS =
            AtomicReferenceFieldUpdater.newUpdater(OwnNodeWatch.class, Status.class, "status");
    private static final AtomicReferenceFieldUpdater<OwnNodeWatch, NodeWatcher> BEHIND =
            AtomicReferenceFieldUpdater.newUpdater(OwnNodeWatch.class, NodeWatcher.class, "behind");

    private volatile Status status; // null until a watch is first set
    private volatile NodeWatcher waiting; // the waiter's watch on the node ahead, woken if ours goes
    private volatile NodeWatcher behind; // the watch of a waiter of this client right behind us, told by this watch
    private CompletableFuture<Status> settling; // guarded by this: made only for a thread that waits for a reply

    OwnNodeWatch() {}

    private LockNode node() {
        return (LockNode) this;
    }

    /**
     * The watch that vouches for {@code node}: the one set on it if it still vouches (or may: its reply has not come) or
     * saw it gone, else a new one set on {@code session}: one data read, not waited for. Send it before the watch on the
     * node ahead, so its reply comes first.
     */
    static OwnNodeWatch vouching(SessionPort session, LockNode node) {
        node.setOn(session);
        return node;
    }

    /** Sends the read that sets the watch on {@code session}, unless one is set or on its way or the node is gone. */
    final void setOn(SessionPort session) {
        Status now = status;
        if (now == Status.PENDING || now == Status.STANDS || now == Status.GONE) {
            return;
        }
        if (STATUS.compareAndSet(this, now, Status.PENDING)) { // one thread sends the read of this round
            session.watchData(node().fixedPath(), this, this);
        }
    }

    /**
     * Keeps a watch on {@code node}, just granted or held again, so that its delete by another client (an operator, a
     * reaper, an open ACL) makes its hold LOST before another session can hold, also when no one queues behind it ({@code
     * StrangerDeleteTest.holdGrantedAtOnce_whoseNodeAnotherClientDeletes_turnsLostBeforeAnotherSessionHolds}): the
     * watch that vouched for it while it waited if it still vouches, else one data read, not waited for. Nothing for a
     * semaphore's internal mutex (held only while its lease is taken; the lease is vouched for), nor if the client is
     * not connected on the node's session: its hold is then IN_DOUBT or LOST, and the reconnect that makes it HELD
     * again calls this again ({@link ConnectionTracker}; {@code VoucherGapTest}), as does a data change that spends the
     * watch while the node is held ({@link #process}). Never blocks.
     */
    static void vouchHeld(LockNode node) {
        LockPath queue = node.queue();
        if (queue.semaphorePath() != null) {
            return;
        }
        SessionPort session = queue.port().connected();
        if (session != null && session.sessionId() == node.sessionId()) {
            node.setOn(session);
        }
    }

    /** Tells whether a watch was ever set on the node. */
    boolean isWatchSet() {
        return status != null;
    }

    /** The read's reply, on ZooKeeper's event thread. */
    @Override
    public void processResult(int rc, String path, Object ctx, byte[] data, Stat stat) {
        if (rc == Code.NONODE.intValue()) {
            gone();
        }
        CompletableFuture<Status> waiter;
        Status now;
        synchronized (this) {
            if (rc == Code.OK.intValue()) {
                STATUS.compareAndSet(this, Status.PENDING, Status.STANDS);
            } else if (rc != Code.NONODE.intValue()) {
                STATUS.compareAndSet(this, Status.PENDING, Status.FAILED);
            }
            now = status;
            waiter = settling; // taken with the status, so that a read set again after it makes its own
            settling = null;
        }
        if (waiter != null) {
            waiter.complete(now);
        }
    }

    /** Has {@code watcher}, the waiter's watch on the node ahead, woken if our node goes; at once if it has gone. */
    void wakes(NodeWatcher watcher) {
        waiting = watcher;
        if (status == Status.GONE) {
            watcher.ownNodeGone();
        }
    }

    /**
     * Has {@code watcher}, the watch of a waiter of this client on the same session right behind this node, told by this
     * node's own watch instead of a watch of its own ({@link NodeWatcher#setOn}): the delete (the waiter's {@link
     * NodeWatcher.Wake#DELETED} or {@link NodeWatcher.Wake#DELETED_FROM_FRONT}) and a data change that spends the watch
     * ({@link NodeWatcher.Wake#CHANGED}: the waiter sets it again). No request of its own, and no second entry in
     * ZooKeeper's watch table. One waiter at a time: false if another is told already.
     */
    final boolean tells(NodeWatcher watcher) {
        return BEHIND.compareAndSet(this, null, watcher);
    }

    /** Stops telling {@code watcher}, dropped; nothing if it is not the one told. */
    final void stopsTelling(NodeWatcher watcher) {
        BEHIND.compareAndSet(this, watcher, null);
    }

    /** Tells whether this watch vouches for the wait of {@code watcher}: it wakes it ({@link #wakes}). */
    final boolean vouchesFor(NodeWatcher watcher) {
        return waiting == watcher;
    }

    /**
     * The status once the read's reply has come: waits for it until {@code deadline}, but at least one request timeout
     * (it came before the node ahead's news whenever both were sent on one session, so this rarely waits); SPENT if it
     * did not come.
     */
    Status settled(Deadline deadline) throws InterruptedException {
        CompletableFuture<Status> waiter = whenSettled();
        if (!waiter.isDone()) {
            node().queue().awaitReply(waiter, deadline);
        }
        Status now = status;
        return now == Status.PENDING ? Status.SPENT : now;
    }

    /**
     * Completes with the status once the read's reply has come (a reply always comes: a failed connection fails the
     * read, SPENT), at once if it has; for a caller that must not block.
     */
    CompletableFuture<Status> whenSettled() {
        Status now = status;
        if (now != Status.PENDING) {
            return CompletableFuture.completedFuture(now);
        }
        synchronized (this) {
            now = status;
            if (now != Status.PENDING) { // the reply came between the two reads
                return CompletableFuture.completedFuture(now);
            }
            if (settling == null) {
                settling = new CompletableFuture<>();
            }
            return settling;
        }
    }

    /** The status now, for a runner that sees replies in order (its reply came before the node ahead's news). */
    Status status() {
        return status;
    }

    @Override
    public void process(WatchedEvent event) {
        switch (event.getType()) {
            case NodeDeleted -> gone();
            case NodeDataChanged -> {
                // A data change (a revocation request, say) spends the watch; a held node gets a new one, off
                // ZooKeeper's event thread, or its delete by a stranger would go unheard (VoucherGapTest).
                LockNode node = node();
                LockState held = node.trackedState();
                if (STATUS.compareAndSet(this, Status.STANDS, Status.SPENT)) {
                    NodeWatcher told = behind;
                    if (told != null) {
                        told.watchedChanged(); // its watch is spent with ours: it sets it again
                    }
                    node.voucherLapsed(); // a grant not yet admitted waits for the next read (Admission)
                    if (held != null && held != LockState.LOST) {
                        node.queue().port().executor().execute(() -> vouchHeld(node));
                    }
                }
            }
            default -> {
                // A disconnection keeps the watch; the end of the session reaches the waiter and the hold otherwise.
            }
        }
    }

    private void gone() {
        Status before = STATUS.getAndSet(this, Status.GONE);
        if (before == Status.GONE) {
            return;
        }
        node().foundDeleted("its node was deleted by another client");
        NodeWatcher watcher = waiting;
        if (watcher != null) {
            watcher.ownNodeGone();
        }
        NodeWatcher told = behind;
        if (told != null) {
            told.watchedDeleted();
        }
    }
}
