package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The one-shot watch of one waiting acquisition on the node ahead of it. Each waiting thread has its own watcher, so a
 * release wakes exactly the waiter that watches the released node, in this process as in any other.
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

    /**
     * @param path the namespace-fixed path of the watched node
     * @param sessionId the session the watch is set on
     * @param releases the releases in flight of the watching client
     */
    public NodeWatcher(String path, long sessionId, ReleasesInFlight releases) {
        this.path = path;
        this.sessionId = sessionId;
        this.releases = releases;
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
