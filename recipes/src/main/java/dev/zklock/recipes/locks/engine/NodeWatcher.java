package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The one-shot watch of one waiting acquisition on the node ahead of it (or, for a semaphore, on its leases). Each
 * waiting thread has its own watcher, so a release wakes exactly the waiter that watches the released node, in this
 * process as in any other. It also wakes, as SESSION_ENDED, as soon as the client's tracker learns that the session it
 * was set on ended, or the client closed ({@link SessionEnds}): a watch set on a handle after its Expired event is
 * never told anything by ZooKeeper, and its waiter would wait for ever. Close it when it is dropped unfired, or
 * {@link #remove} it from the server too if it was set. One object is the watcher, the watch to remove and the wait on
 * the session's end: with 10,000 waiting threads, every object of a waiter counts. Behind a node of its own client, the
 * watcher is told by that node's own watch and sets none of its own ({@link #setOn}). Safe for use by multiple threads.
 */
public final class NodeWatcher extends SessionEnds.Registration implements Watcher {
    /** Why a waiter woke up. */
    public enum Wake {
        /** The watched node was deleted. */
        DELETED,
        /** The watched node was deleted, and it had been granted the lock with no node ranked before it. */
        DELETED_FROM_FRONT,
        /** The watched node's data changed; the watch is spent and must be set again. */
        CHANGED,
        /** The session that holds the watch ended (expired or closed): our own node may be gone. */
        SESSION_ENDED,
        /** Our own node was deleted while we waited ({@link OwnNodeWatch}); the watch on the node ahead is still set. */
        OWN_GONE
    }

    /** What is told of a wake-up without a thread waiting for it: the steps of an asynchronous runner. */
    public interface Listener {
        /** {@code watcher} woke up for {@code why}; on the thread that woke it, so it must not block. */
        void woken(NodeWatcher watcher, Wake why);
    }

    private static final AtomicReferenceFieldUpdater<NodeWatcher, Wake> WOKEN =
            AtomicReferenceFieldUpdater.newUpdater(NodeWatcher.class, Wake.class, "woken");
    private static final AtomicReferenceFieldUpdater<NodeWatcher, Listener> LISTENER =
            AtomicReferenceFieldUpdater.newUpdater(NodeWatcher.class, Listener.class, "listener");

    private final LockPath owner;
    private final SessionPort session; // the client's port hands out one handle per session: no object of its own
    private final String path;
    private final boolean children;
    private volatile Wake woken; // set once
    private volatile Listener listener; // told the wake-up once, if set
    private CompletableFuture<Wake> waited; // guarded by this: made for a thread that waits (await), else none
    private volatile OwnNodeWatch toldBy; // the node of ours ahead whose own watch tells this one, if it is so set

    /**
     * Makes the watcher of a watch about to be set, and has it wait on the session's end.
     *
     * @param owner the lock path of the waiter, whose client and context it watches with
     * @param session the session the watch is set on
     * @param path the namespace-fixed path of the watched node
     * @param children a child watch (a semaphore's leases), else a data watch
     */
    public NodeWatcher(LockPath owner, SessionPort session, String path, boolean children) {
        super(session.sessionId());
        this.owner = owner;
        this.session = session;
        this.path = path;
        this.children = children;
        owner.context().sessionEnds().register(owner.port(), this); // last: it may fire at once
    }

    /**
     * The watcher is dropped unfired (its watch was removed, or never set): it stops waiting on the session's end, and
     * the node ahead stops telling it.
     */
    public void close() {
        cancel();
        OwnNodeWatch ahead = toldBy;
        if (ahead != null) {
            ahead.stopsTelling(this);
        }
    }

    /**
     * Removes the watch from the client: one request, not waited for ({@link LockPath#removeWatch}); none if the node
     * ahead's own watch told it.
     */
    public void remove() {
        close();
        if (toldBy == null) {
            owner.removeWatch(session, path, this, children);
        }
    }

    /**
     * Sets this data watch on its node: a data read with this watcher (one request), or, when that node is {@code
     * ownAhead}, a node of this client on this session right before ours ({@link Event.Created#ownPredecessor}), with
     * no request: that node's own watch ({@link OwnNodeWatch}, set by its waiter or its holder, or by this call if it
     * is not) tells this one ({@link OwnNodeWatch#tells}). The reply is then the one a read would have given: OK while
     * the node stands (its own watch set), NONODE once it is gone, CONNECTIONLOSS if its read failed. It comes once
     * {@code own}, the watch that vouches for our own node, has its reply, as a read sent after it would: so news of
     * the node ahead is never told before our node's voucher knows (Acquisition, note 7). Never blocks.
     *
     * @param ownAhead the node of ours right before ours, or null
     * @param own the voucher of our own node, sent just before, or null
     */
    public CompletableFuture<Reply> setOn(LockNode ownAhead, OwnNodeWatch own) {
        if (ownAhead == null
                || children
                || ownAhead.sessionId() != session.sessionId()
                || !ownAhead.fixedPath().equals(path)
                || !ownAhead.tells(this)) {
            return session.watchData(path, this);
        }
        toldBy = ownAhead;
        CompletableFuture<OwnNodeWatch.Status> ours =
                own == null ? CompletableFuture.completedFuture(null) : own.whenSettled();
        return ours.thenCompose(settled -> {
                    ownAhead.setOn(session);
                    return ownAhead.whenSettled();
                })
                .thenApply(NodeWatcher::asReply);
    }

    /** As {@link #setOn}, waiting for the reply on the calling thread (through {@link Parking}). */
    public Reply setOnNow(LockNode ownAhead, OwnNodeWatch own) throws InterruptedException {
        try {
            return Parking.get(setOn(ownAhead, own));
        } catch (ExecutionException e) {
            // Replies are completed by callbacks that cannot throw: a failure here is a library bug.
            throw new AssertionError("a watch's reply failed", e.getCause());
        }
    }

    /** What a data read of a node would have answered, from the status of the node's own watch. */
    private static Reply asReply(OwnNodeWatch.Status ahead) {
        return switch (ahead) {
            case STANDS -> new Reply.Done();
            case GONE -> new Reply.Failed(Code.NONODE);
            default -> new Reply.Failed(Code.CONNECTIONLOSS); // its read failed, or a data change spent it: again
        };
    }

    /** The node ahead, whose own watch tells this one, was deleted: as the delete event of a watch of its own. */
    void watchedDeleted() {
        wake(
                ClientContext.isReleasingFromFront(ZKPaths.getNodeFromPath(path))
                        ? Wake.DELETED_FROM_FRONT
                        : Wake.DELETED);
    }

    /** The node ahead's data changed, which spent its own watch and so this one: as a data event of its own. */
    void watchedChanged() {
        wake(Wake.CHANGED);
    }

    /** Wakes the waiter because its own node was deleted ({@link OwnNodeWatch}); nothing if it has woken already. */
    void ownNodeGone() {
        wake(Wake.OWN_GONE);
    }

    @Override
    protected void sessionEnded() {
        wake(Wake.SESSION_ENDED);
    }

    @Override
    public void process(WatchedEvent event) {
        switch (event.getType()) {
            case NodeDeleted -> watchedDeleted();
            case NodeDataChanged, NodeCreated, NodeChildrenChanged -> wake(Wake.CHANGED);
            case None -> {
                // A disconnection keeps the watch: ZooKeeper sets it again on reconnect and fires it if the node went
                // meanwhile. Only the end of the session loses it.
                if (event.getState() == Event.KeeperState.Expired || event.getState() == Event.KeeperState.Closed) {
                    wake(Wake.SESSION_ENDED);
                }
            }
            default -> {
                // DataWatchRemoved and the like: our own removal of a watch we no longer need.
            }
        }
    }

    private void wake(Wake why) {
        if (WOKEN.compareAndSet(this, null, why)) {
            cancel();
            tell(why);
            CompletableFuture<Wake> waiting;
            synchronized (this) {
                waiting = waited;
            }
            if (waiting != null) {
                waiting.complete(why);
            }
        }
    }

    /**
     * Tells {@code woken} the wake-up once, on the thread that wakes the watcher (ZooKeeper's event thread, say), or at
     * once if it has woken already: for waiting without a thread, with no future and no lambda of its own.
     */
    public void onWake(Listener woken) {
        listener = woken;
        Wake known = this.woken;
        if (known != null) {
            tell(known);
        }
    }

    private void tell(Wake why) {
        Listener told = LISTENER.getAndSet(this, null);
        if (told != null) {
            told.woken(this, why);
        }
    }

    /** Waits for the wake-up until the deadline; returns null if it passed first. */
    public Wake await(Deadline deadline) throws InterruptedException {
        CompletableFuture<Wake> waiting;
        synchronized (this) {
            if (waited == null) {
                waited = new CompletableFuture<>();
            }
            waiting = waited;
        }
        Wake known = woken;
        if (known != null) {
            waiting.complete(known);
        }
        return deadline.await(waiting, 0);
    }
}
