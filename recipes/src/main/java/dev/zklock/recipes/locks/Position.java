package dev.zklock.recipes.locks;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our place in one lock queue while an acquisition waits there: our node, and the watch on the node ahead. It
 * decides on a listing, waits for the watched node, and leaves the queue. Confined to the acquiring thread.
 *
 * <p>Waiting follows notes 2, 3 and 4 of {@link Attempt}: a data-read watch on the one node the driver names; after
 * that node goes, no listing when it was the only node blocking ours or it held the lock from the front in this
 * process (unless the driver asked to list again), otherwise one listing.
 */
final class Position {
    private static final Logger logger = LoggerFactory.getLogger(Position.class);

    private final LockQueue queue;
    private final Deadline deadline;
    private LockNode node;
    private NodeWatcher watcher;
    private String watchedPath;
    private ZkSession watchSession;

    Position(LockQueue queue, Deadline deadline) {
        this.queue = queue;
        this.deadline = deadline;
    }

    LockQueue queue() {
        return queue;
    }

    LockNode node() {
        return node;
    }

    void enteredWith(LockNode entered) {
        this.node = entered;
    }

    /** Asks the driver about a listing that holds our place. */
    LockQueueView view(Listing listing) {
        return queue.view(listing.children(), node.name());
    }

    /** Records that our node holds the lock in {@code view}; a node that holds from the front is remembered. */
    void granted(LockQueueView view) {
        if (view.ourIndex() == 0) {
            FrontNodes.add(queue.fixed(node.path()));
        }
    }

    /** Waits for the node the driver named; returns the next listing to decide on, or null at the deadline. */
    Listing await(LockQueueView view, LockDecision decision) throws InterruptedException {
        String nodeToWatch = decision.nodeToWatch();
        boolean mayAssume = !decision.relistsWhenGone();
        boolean onlyBlocker =
                mayAssume && queue.decide(view.without(nodeToWatch)).holdsLock();
        String path = queue.fixed(ZKPaths.makePath(queue.path(), nodeToWatch));
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            NodeWatcher nodeWatcher = new NodeWatcher(path, session.sessionId());
            setWatch(nodeWatcher, path, session);
            Reply reply = session.watchDataNow(path, nodeWatcher);
            if (reply.code() == Code.NONODE) {
                clearWatch();
                boolean fromFront = mayAssume && FrontNodes.contains(path);
                if (!releaseOver(path, session.sessionId())) {
                    return null;
                }
                return afterDeletion(view, nodeToWatch, onlyBlocker, fromFront, session.sessionId());
            }
            if (reply.isRetryable()) {
                clearWatch();
                continue;
            }
            if (!reply.isOk()) {
                clearWatch();
                throw queue.failure("watch node " + nodeToWatch, KeeperException.create(reply.code(), path), true);
            }
            logger.debug("{}: {} watches {}", queue.path(), node.name(), nodeToWatch);
            queue.hooks().watchSet(queue.path(), node.name(), nodeToWatch);
            NodeWatcher.Wake wake = nodeWatcher.await(deadline);
            if (wake == null) {
                return null;
            }
            clearWatch();
            switch (wake) {
                case DELETED:
                case DELETED_FROM_FRONT:
                    boolean fromFront = mayAssume && wake == NodeWatcher.Wake.DELETED_FROM_FRONT;
                    return afterDeletion(view, nodeToWatch, onlyBlocker, fromFront, session.sessionId());
                case SESSION_ENDED:
                    return list();
                default:
                    break; // the data changed: the watch is spent, set it again
            }
        }
    }

    /** Waits until this process no longer releases {@code path} ({@link ReleasesInFlight}); false at the deadline. */
    private boolean releaseOver(String path, long sessionId) throws InterruptedException {
        CompletableFuture<Void> release = ReleasesInFlight.after(path, sessionId);
        return release.isDone() || deadline.await(release.thenApply(over -> Boolean.TRUE), 0) != null;
    }

    /**
     * Returns what to decide on after the watched node went: the listing without it if it was the only node blocking
     * ours, or without everything up to it if it had held the lock from the front; otherwise a fresh listing.
     */
    private Listing afterDeletion(
            LockQueueView view, String watched, boolean onlyBlocker, boolean fromFront, long sessionId)
            throws InterruptedException {
        if (onlyBlocker) {
            return new Listing(view.without(watched).children(), sessionId);
        }
        if (fromFront) {
            return new Listing(view.withoutUpTo(watched).children(), sessionId);
        }
        return list();
    }

    /** Lists the lock path; null if the deadline passed while disconnected. */
    Listing list() throws InterruptedException {
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            Reply reply = session.childrenNow(queue.fixed(queue.path()));
            if (reply.isOk()) {
                return new Listing(reply);
            }
            if (reply.code() == Code.NONODE) {
                return new Listing(List.of(), session.sessionId());
            }
            if (!reply.isRetryable()) {
                throw queue.failure("list the queue", KeeperException.create(reply.code(), queue.path()), true);
            }
        }
    }

    /** Gives up our place: removes our watch and deletes our node. Returns whether our node is known gone. */
    boolean leave() {
        if (watcher != null) {
            watchSession.removeWatch(watchedPath, watcher);
            clearWatch();
        }
        if (node == null) {
            return true;
        }
        LockNode ours = node;
        node = null;
        return queue.delete(ours.path());
    }

    private void setWatch(NodeWatcher nodeWatcher, String path, ZkSession session) {
        watcher = nodeWatcher;
        watchedPath = path;
        watchSession = session;
    }

    private void clearWatch() {
        watcher = null;
        watchedPath = null;
        watchSession = null;
    }
}
