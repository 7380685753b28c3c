package dev.zklock.recipes.locks.engine;

import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The watches a {@link Cohort} sets for its node: the listing of the lock path with a child watch, and the read of the
 * node itself with a data watch. Each sends one request; its answer, and each event of its watch, goes to the cohort's
 * inbox as a {@link LocalEvent}, never waiting for the cohort's lock. One watcher object per node and kind, so asking
 * again never sets a second watch. Safe for use by multiple threads: the cohort's runner asks, ZooKeeper's event
 * thread answers.
 */
final class CohortWatches {
    private final LockPath path;
    private final Consumer<LocalEvent> post;
    private volatile ChildWatch childWatch; // the child watcher of the last node listed for: one per node
    private volatile OwnWatch ownWatch; // the data watcher of the last node watched: one per node

    /**
     * @param path the lock's path, whose client sends the requests
     * @param post puts an event in the cohort's inbox
     */
    CohortWatches(LockPath path, Consumer<LocalEvent> post) {
        this.path = path;
        this.post = post;
    }

    /** Lists the lock path with the child watch of {@code node}: one request; the answer goes to the inbox. */
    void list(LockNode node) {
        ChildWatch watch = childWatch;
        if (watch == null || watch.node != node) {
            watch = new ChildWatch(node);
            childWatch = watch;
        }
        ChildWatch watcher = watch;
        SessionPort handle = path.port().current();
        if (handle == null || handle.sessionId() != node.sessionId()) {
            post.accept(new LocalEvent.ListingFailed(node, Code.CONNECTIONLOSS, now()));
            return;
        }
        handle.watchChildren(path.fixed(path.path()), watcher).thenAccept(reply -> {
            if (reply instanceof Reply.Children listing) {
                post.accept(new LocalEvent.Listed(node, listing.children(), watcher, now()));
            } else {
                post.accept(new LocalEvent.ListingFailed(node, reply.code(), now()));
            }
        });
    }

    /** Reads the cohort's own node with a data watch: one request; its deletion, or its absence now, goes to the inbox. */
    void watchOwn(LockNode node) {
        OwnWatch watch = ownWatch;
        if (watch == null || watch.node != node) {
            watch = new OwnWatch(node);
            ownWatch = watch;
        }
        SessionPort handle = path.port().current();
        if (handle == null || handle.sessionId() != node.sessionId()) {
            post.accept(new LocalEvent.NodeWatchFailed(node, now())); // asked again once HELD again (Resumed)
            return;
        }
        handle.watchData(node.fixedPath(), watch).thenAccept(reply -> {
            if (reply.code() == Code.NONODE) {
                post.accept(new LocalEvent.NodeDeleted(node));
            } else if (reply.code() == Code.OK) {
                post.accept(new LocalEvent.NodeWatched(node, now()));
            } else {
                post.accept(new LocalEvent.NodeWatchFailed(node, now()));
            }
        });
    }

    /** The data watcher of the cohort's own node: one object per node, so setting it again never sets a second one. */
    private final class OwnWatch implements Watcher {
        final LockNode node;

        OwnWatch(LockNode node) {
            this.node = node;
        }

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() == Event.EventType.NodeDeleted) {
                post.accept(new LocalEvent.NodeDeleted(node));
            } else if (event.getType() == Event.EventType.NodeDataChanged) {
                watchOwn(node); // a revocation request, say: keep watching for the delete
            }
        }
    }

    /** The child watcher of one node of the cohort: one object per node, so listing again never sets a second one. */
    private final class ChildWatch implements Watcher {
        final LockNode node;

        ChildWatch(LockNode node) {
            this.node = node;
        }

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() != Event.EventType.None) {
                post.accept(new LocalEvent.ChildrenChanged(node));
            }
            // A disconnection keeps the watch; a session's end reaches the cohort as the node's LOST.
        }
    }

    /** The time of a local event, on the client's clock (the simulator's, in the simulator). */
    private long now() {
        return path.context().timer().read();
    }
}
