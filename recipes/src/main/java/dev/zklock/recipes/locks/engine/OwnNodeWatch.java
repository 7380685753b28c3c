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
 * The data watch of a waiting acquisition on its own node: what vouches, when the node ahead goes and the lock is taken
 * with no listing, that our node still stands. Safe for use by multiple threads.
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
 *   <li>PENDING until the read's reply; STANDS once it found the node (the watch is set);
 *   <li>GONE once the read found no node or the watch saw it deleted: the waiter is woken ({@link NodeWatcher.Wake#OWN_GONE})
 *       and enters again; a hold already tracked is made LOST ({@link ConnectionTracker#lose}), and one not yet tracked
 *       starts LOST ({@link LockNode#isDeletedOutside()});
 *   <li>SPENT when the watch fired for a data change (a revocation request, say) or failed: it vouches no more, and a
 *       grant then lists the queue first.
 * </ul>
 *
 * <p>Once the lock is held the watch stays: our own release deletes the node after it stops tracking the hold, which
 * fires the watch with nothing left to tell, so the watch costs no request to remove.
 */
final class OwnNodeWatch implements Watcher, AsyncCallback.DataCallback {
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

    private final LockNode node;
    private volatile Status status = Status.PENDING;
    private volatile NodeWatcher waiting; // the waiter's watch on the node ahead, woken if ours goes
    private CompletableFuture<Status> settling; // guarded by this: made only for a thread that waits for the reply

    private OwnNodeWatch(LockNode node) {
        this.node = node;
    }

    /**
     * Sets the watch on {@code node}: one data read on {@code session}, not waited for. Send it before the watch on the
     * node ahead, so its reply comes first.
     */
    static OwnNodeWatch set(SessionPort session, LockNode node) {
        OwnNodeWatch watch = new OwnNodeWatch(node);
        node.watchedBy(watch);
        session.watchData(node.fixedPath(), watch, watch);
        return watch;
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
            vouching(node.ownWatch(), session, node);
        }
    }

    /** The read's reply, on ZooKeeper's event thread. */
    @Override
    public void processResult(int rc, String path, Object ctx, byte[] data, Stat stat) {
        if (rc == Code.OK.intValue()) {
            STATUS.compareAndSet(this, Status.PENDING, Status.STANDS);
        } else if (rc == Code.NONODE.intValue()) {
            gone();
        } else {
            STATUS.compareAndSet(this, Status.PENDING, Status.FAILED);
        }
        CompletableFuture<Status> waiter;
        synchronized (this) {
            waiter = settling;
        }
        if (waiter != null) {
            waiter.complete(status);
        }
    }

    /**
     * The watch that vouches for {@code node}: {@code set}, if it watches that node and still vouches (or may: its
     * reply has not come), else a new one ({@link #set}, one read).
     */
    static OwnNodeWatch vouching(OwnNodeWatch set, SessionPort session, LockNode node) {
        if (set != null && set.node == node) {
            Status now = set.status;
            if (now == Status.PENDING || now == Status.STANDS) {
                return set;
            }
        }
        return set(session, node);
    }

    /** Has {@code watcher}, the waiter's watch on the node ahead, woken if our node goes; at once if it has gone. */
    void wakes(NodeWatcher watcher) {
        waiting = watcher;
        if (status == Status.GONE) {
            watcher.ownNodeGone();
        }
    }

    /**
     * The status once the read's reply has come: waits for it until {@code deadline}, but at least one request timeout
     * (it came before the node ahead's news whenever both were sent on one session, so this rarely waits); SPENT if it
     * did not come.
     */
    Status settled(Deadline deadline) throws InterruptedException {
        CompletableFuture<Status> waiter = whenSettled();
        if (!waiter.isDone()) {
            node.queue().awaitReply(waiter, deadline);
        }
        Status now = status;
        return now == Status.PENDING ? Status.SPENT : now;
    }

    /**
     * Completes with the status once the read's reply has come (a reply always comes: a failed connection fails the
     * read, SPENT), at once if it has; for a caller that must not block.
     */
    CompletableFuture<Status> whenSettled() {
        if (status != Status.PENDING) {
            return CompletableFuture.completedFuture(status);
        }
        CompletableFuture<Status> waiter;
        synchronized (this) {
            if (settling == null) {
                settling = new CompletableFuture<>();
            }
            waiter = settling;
        }
        if (status != Status.PENDING) { // the reply came between the two reads
            waiter.complete(status);
        }
        return waiter;
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
                LockState held = node.state();
                if (STATUS.compareAndSet(this, Status.STANDS, Status.SPENT)) {
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
        node.foundDeleted("its node was deleted by another client");
        NodeWatcher watcher = waiting;
        if (watcher != null) {
            watcher.ownNodeGone();
        }
    }
}
