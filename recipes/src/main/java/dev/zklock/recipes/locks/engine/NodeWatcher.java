package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The one-shot watch of one waiting acquisition on the node ahead of it (or, for a semaphore, on its leases). Each
 * waiting thread has its own watcher, so a release wakes exactly the waiter that watches the released node, in this
 * process as in any other. It also wakes, as SESSION_ENDED, as soon as the client's tracker learns that the session it
 * was set on ended, or the client closed ({@link SessionEnds}): a watch set on a handle after its Expired event is
 * never told anything by ZooKeeper, and its waiter would wait for ever. Close it when it is dropped unfired.
 */
public final class NodeWatcher implements Watcher {
    /** Why a waiter woke up. */
    public enum Wake {
        /** The watched node was deleted. */
        DELETED,
        /** The watched node was deleted, and it had been granted the lock with no node ranked before it. */
        DELETED_FROM_FRONT,
        /** The watched node's data changed; the watch is spent and must be set again. */
        CHANGED,
        /** The session that holds the watch ended (expired or closed): our own node may be gone. */
        SESSION_ENDED
    }

    private final CompletableFuture<Wake> wake = new CompletableFuture<>();
    private final String path;
    private final long sessionId;
    private final ReleasesInFlight releases;
    private final SessionEnds.Registration sessionEnd;

    /**
     * @param path the namespace-fixed path of the watched node
     * @param sessionId the session the watch is set on
     * @param lockPath the lock path of the waiter, whose client and context it watches with
     */
    public NodeWatcher(String path, long sessionId, LockPath lockPath) {
        this.path = path;
        this.sessionId = sessionId;
        ClientContext context = lockPath.context();
        this.releases = context.releases();
        this.sessionEnd =
                context.sessionEnds().onEnd(lockPath.client(), sessionId, () -> wake.complete(Wake.SESSION_ENDED));
        wake.whenComplete((woken, failure) -> sessionEnd.cancel());
    }

    /** The watcher is dropped unfired (its watch was removed, or never set): it stops waiting on the session's end. */
    public void close() {
        sessionEnd.cancel();
    }

    @Override
    public void process(WatchedEvent event) {
        switch (event.getType()) {
            case NodeDeleted -> {
                Wake deleted = ClientContext.isReleasingFromFront(ZKPaths.getNodeFromPath(path))
                        ? Wake.DELETED_FROM_FRONT
                        : Wake.DELETED;
                // Never waits: a wake-up held back for a release of this client is completed by its timer.
                releases.after(path, sessionId).thenRun(() -> wake.complete(deleted));
            }
            case NodeDataChanged, NodeCreated, NodeChildrenChanged -> wake.complete(Wake.CHANGED);
            case None -> {
                // A disconnection keeps the watch: ZooKeeper sets it again on reconnect and fires it if the node went
                // meanwhile. Only the end of the session loses it.
                if (event.getState() == Event.KeeperState.Expired || event.getState() == Event.KeeperState.Closed) {
                    wake.complete(Wake.SESSION_ENDED);
                }
            }
            default -> {
                // DataWatchRemoved and the like: our own removal of a watch we no longer need.
            }
        }
    }

    /** Returns the wake-up as a future, for waiting without a thread. */
    public CompletableFuture<Wake> wakeUp() {
        return wake;
    }

    /** Waits for the wake-up until the deadline; returns null if it passed first. */
    public Wake await(Deadline deadline) throws InterruptedException {
        return deadline.await(wake, 0);
    }
}
