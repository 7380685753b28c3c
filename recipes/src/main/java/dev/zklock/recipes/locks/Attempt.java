package dev.zklock.recipes.locks;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition: take a place in a {@link LockQueue}, wait for the driver to say it holds, or give up and leave
 * nothing behind. Confined to the acquiring thread.
 */
final class Attempt {
    /*
     * Implementation notes.
     *
     * 1. Entering costs one round trip: the create of our protected EPHEMERAL_SEQUENTIAL node and the listing of the
     *    lock path are sent back-to-back on one session. ZooKeeper answers one session's requests in order, so the
     *    listing already holds our node (PipelinedListingTest).
     * 2. The driver names one node ahead to watch. The watch is set with a data read: on a node that is already gone
     *    it fails with NONODE and leaves no watch behind.
     * 3. Before waiting we ask the driver about the listing without the watched node. If that view holds, the watched
     *    node is the only one blocking ours, and its deletion hands us the lock with no further request: sequence
     *    numbers only grow, so no node can appear ahead of ours, and the driver is monotone (RequestCountTest,
     *    handOff_whenTheOnlyNodeAheadReleases_takesTheLockWithoutAListing). Likewise when the watched node was granted
     *    in this process with nothing ahead of it (FrontNodes): nothing up to it can remain. Otherwise a deletion is
     *    followed by one listing: a node ahead may have given up rather than released, and a deletion looks the same
     *    either way. Earlier nodes are never checked one request at a time.
     * 4. A lost connection keeps our node and our watch (ZooKeeper sets watches again on reconnect). A lost create is
     *    found again by its protected prefix after a sync, on the same session only: a node made on an ended session
     *    is not ours to hold (CreateRecoveryTest). A listing on a new session, or one without our node, means our
     *    place is lost: we delete what is left of it and enter again at the back (SessionFaultsTest).
     * 5. Every way out that is not "holds" (timeout, interrupt, error) deletes our node, removes our watch and, for a
     *    create whose reply never came, sweeps for its prefix (ZkReentrantLockTest, CreateRecoveryTest).
     */
    private static final Logger logger = LoggerFactory.getLogger(Attempt.class);

    private final LockQueue queue;
    private final Deadline deadline;
    private final long startNanos = System.nanoTime();

    private String prefix;
    private LockNode node;
    private CompletableFuture<Reply> pendingCreate;
    private NodeWatcher watcher;
    private String watchedPath;
    private ZkSession watchSession;

    Attempt(LockQueue queue, Deadline deadline) {
        this.queue = queue;
        this.deadline = deadline;
    }

    Optional<LockNode> run() throws InterruptedException {
        try {
            Listing listing = enter();
            while (listing != null) {
                if (listing.sessionId() != node.sessionId()
                        || !listing.children().contains(node.name())) {
                    listing = reenter();
                    continue;
                }
                LockQueueView view = queue.view(listing.children(), node.name());
                LockDecision decision = queue.decide(view);
                if (decision.holdsLock()) {
                    if (view.ourIndex() == 0) {
                        FrontNodes.add(queue.fixed(node.path()));
                    }
                    logger.debug("{}: {} holds the lock after {} µs", queue.path(), node, elapsedMicros());
                    return Optional.of(node);
                }
                if (deadline.hasPassed()) {
                    break;
                }
                listing = await(view, decision.nodeToWatch());
            }
            logger.debug("{}: gave up after {} µs ({})", queue.path(), elapsedMicros(), deadline);
            abandon();
            return Optional.empty();
        } catch (InterruptedException e) {
            abandon();
            Thread.interrupted(); // InterruptedException clears the flag: keep the JDK's meaning even after cleanup
            throw e;
        } catch (RuntimeException | Error e) {
            try {
                abandon();
            } catch (RuntimeException cleanupFailure) {
                e.addSuppressed(cleanupFailure);
            }
            throw e;
        }
    }

    /** Creates our node and reads the pipelined listing; null if the deadline passed while disconnected. */
    private Listing enter() throws InterruptedException {
        prefix = NodeNames.newPrefix(queue.lockName());
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            CreateRequest request = queue.createRequest(prefix);
            pendingCreate = queue.createOn(session, request);
            CompletableFuture<Reply> listed = session.children(queue.fixed(queue.path()));
            queue.hooks().createSent(queue.path(), prefix);
            Reply created = awaitReply(pendingCreate);
            if (created == null) {
                return null;
            }
            if (created.isOk()) {
                pendingCreate = null;
                node = nodeOf(created.name(), created.stat(), session);
                Reply listing = awaitReply(listed);
                if (listing == null) {
                    return null;
                }
                queue.hooks().entered(queue.path(), node.name(), listing.children());
                return listing.isOk() && listing.children().contains(node.name()) ? new Listing(listing) : list();
            }
            if (created.code() == Code.NONODE) {
                pendingCreate = null;
                queue.createParents();
            } else if (created.isRetryable()) {
                if (recover(session)) {
                    return list();
                }
                if (pendingCreate != null) {
                    return null;
                }
            } else {
                pendingCreate = null;
                throw queue.failure(
                        "create a lock node", KeeperException.create(created.code(), request.getPath()), true);
            }
        }
    }

    /**
     * Finds out whether a create whose reply was lost made our node. Returns true if it did (our node is set), false
     * if the create must be sent again (the pending create is cleared) or the deadline passed (it is kept, and
     * {@link #abandon()} sweeps for it).
     */
    private boolean recover(ZkSession before) throws InterruptedException {
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return false;
            }
            if (session.sessionId() != before.sessionId()) {
                // A node made on the ended session goes with it; it must not be taken for ours.
                pendingCreate = null;
                prefix = NodeNames.newPrefix(queue.lockName());
                return false;
            }
            // The sync makes the server we listen to catch up with a create still in flight from the lost connection.
            session.sync(queue.fixed(queue.path()));
            Reply listing = awaitReply(session.children(queue.fixed(queue.path())));
            if (listing == null) {
                return false;
            }
            if (listing.isRetryable()) {
                continue;
            }
            String child = listing.children().stream()
                    .filter(name -> name.startsWith(prefix))
                    .findFirst()
                    .orElse(null);
            if (child == null) {
                pendingCreate = null;
                return false;
            }
            String childPath = queue.fixed(ZKPaths.makePath(queue.path(), child));
            Reply found = awaitReply(session.exists(childPath));
            if (found == null) {
                return false;
            }
            if (found.isOk()) {
                pendingCreate = null;
                node = nodeOf(childPath, found.stat(), session);
                logger.debug("{}: found {} after a lost create reply", queue.path(), node);
                return true;
            }
            if (!found.isRetryable()) {
                pendingCreate = null;
                return false;
            }
        }
    }

    /** Our place was lost (session ended, or our node deleted): delete what may be left of it and enter again. */
    private Listing reenter() throws InterruptedException {
        logger.warn("{}: lost our place {} while waiting; entering the queue again", queue.path(), node);
        LockNode lost = node;
        node = null;
        queue.delete(lost.path());
        return enter();
    }

    /** Waits for the watched node to change; returns the next listing to decide on, or null at the deadline. */
    private Listing await(LockQueueView view, String nodeToWatch) throws InterruptedException {
        boolean onlyBlocker = queue.decide(view.without(nodeToWatch)).holdsLock();
        String path = queue.fixed(ZKPaths.makePath(queue.path(), nodeToWatch));
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            NodeWatcher nodeWatcher = new NodeWatcher(path);
            setWatch(nodeWatcher, path, session);
            Reply reply = awaitReply(session.watchData(path, nodeWatcher));
            if (reply == null) {
                return null;
            }
            if (reply.code() == Code.NONODE) {
                clearWatch();
                return afterDeletion(view, nodeToWatch, onlyBlocker, FrontNodes.contains(path), session.sessionId());
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
                    return afterDeletion(
                            view,
                            nodeToWatch,
                            onlyBlocker,
                            wake == NodeWatcher.Wake.DELETED_FROM_FRONT,
                            session.sessionId());
                case SESSION_ENDED:
                    return list();
                default:
                    break; // the data changed: the watch is spent, set it again
            }
        }
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
    private Listing list() throws InterruptedException {
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            Reply reply = awaitReply(session.children(queue.fixed(queue.path())));
            if (reply == null) {
                return null;
            }
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

    /** Leaves the queue: removes our watch, deletes our node, and sweeps for a create whose reply never came. */
    private void abandon() {
        if (watcher != null) {
            watchSession.removeWatch(watchedPath, watcher);
            clearWatch();
        }
        if (node != null) {
            LockNode ours = node;
            node = null;
            queue.delete(ours.path());
        }
        if (pendingCreate != null) {
            String lostPrefix = prefix;
            pendingCreate.whenComplete((reply, error) -> {
                if (reply != null && reply.isOk()) {
                    queue.deleteInBackground(ZKPaths.makePath(queue.path(), ZKPaths.getNodeFromPath(reply.name())));
                } else if (reply == null || reply.isRetryable()) {
                    queue.sweepInBackground(lostPrefix);
                }
            });
            pendingCreate = null;
        }
    }

    private Reply awaitReply(CompletableFuture<Reply> reply) throws InterruptedException {
        return deadline.await(reply, queue.requestTimeoutNanos());
    }

    private LockNode nodeOf(String fixedPath, Stat stat, ZkSession session) {
        String name = ZKPaths.getNodeFromPath(fixedPath);
        return new LockNode(ZKPaths.makePath(queue.path(), name), name, stat.getCzxid(), session.sessionId());
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

    private long elapsedMicros() {
        return (System.nanoTime() - startNanos) / 1000;
    }

    /** Children of the lock path as one session saw them. */
    private record Listing(List<String> children, long sessionId) {
        Listing(Reply reply) {
            this(reply.children(), reply.sessionId());
        }
    }
}
