package dev.zklock.recipes.locks;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition in one queue: take a place in a {@link LockQueue}, wait for the driver to say it holds, or give up
 * and leave nothing behind. Confined to the acquiring thread.
 */
final class Attempt {
    /*
     * Implementation notes.
     *
     * 1. Entering costs one round trip: the create of our protected EPHEMERAL_SEQUENTIAL node and the listing of the
     *    lock path are sent back-to-back on one session. ZooKeeper answers one session's requests in order, so the
     *    listing already holds our node (PipelinedListingTest).
     * 2. The driver names one node ahead to watch (Position). The watch is set with a data read: on a node that is
     *    already gone it fails with NONODE and leaves no watch behind.
     * 3. Before waiting we ask the driver about the listing without the watched node. If that view holds, the watched
     *    node is the only one blocking ours, and its deletion hands us the lock with no further request: sequence
     *    numbers only grow, so no node can appear ahead of ours, and the driver is monotone (RequestCountTest,
     *    handOff_whenTheOnlyNodeAheadReleases_takesTheLockWithoutAListing). Likewise when the watched node was granted
     *    in this process with nothing ahead of it (FrontNodes): nothing up to it can remain. A driver that knows a
     *    node may yet appear ahead of ours (a Curator downgrade) asks to list again instead (DowngradeInteropTest).
     *    Otherwise a deletion is followed by one listing: a node ahead may have given up rather than released, and a
     *    deletion looks the same either way. Earlier nodes are never checked one request at a time.
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
    private final Position position;
    private final String alongsideSequence;
    private final long startNanos = System.nanoTime();

    private String prefix;
    private CompletableFuture<Reply> pendingCreate;

    /**
     * @param alongsideSequence null for a node in the queue's order; else the sequence of a node of ours that holds,
     *     which this non-sequential node carries and holds beside (a downgrade)
     */
    Attempt(LockQueue queue, Deadline deadline, String alongsideSequence) {
        this.queue = queue;
        this.deadline = deadline;
        this.position = new Position(queue, deadline);
        this.alongsideSequence = alongsideSequence;
    }

    Optional<LockNode> run() throws InterruptedException {
        return GiveUp.onFailure(this::runOnce, this::abandon);
    }

    private Optional<LockNode> runOnce() throws InterruptedException {
        Listing listing = enter();
        while (listing != null) {
            if (!listing.holdsPlaceOf(position.node())) {
                listing = reenter();
                continue;
            }
            LockQueueView view = position.view(listing);
            LockDecision decision = alongsideSequence != null ? LockDecision.holds() : queue.decide(view);
            if (decision.holdsLock()) {
                position.granted(view);
                logger.debug("{}: {} holds the lock after {} µs", queue.path(), position.node(), elapsedMicros());
                return Optional.of(position.node());
            }
            if (deadline.hasPassed()) {
                break;
            }
            listing = position.await(view, decision);
        }
        logger.debug("{}: gave up after {} µs ({})", queue.path(), elapsedMicros(), deadline);
        abandon();
        return Optional.empty();
    }

    /** Creates our node and reads the pipelined listing; null if the deadline passed while disconnected. */
    private Listing enter() throws InterruptedException {
        prefix = NodeNames.newPrefix(queue.lockName());
        while (true) {
            ZkSession session = queue.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            CreateRequest request = alongsideSequence == null
                    ? queue.createRequest(prefix, CreateMode.EPHEMERAL_SEQUENTIAL)
                    : queue.createRequest(prefix + alongsideSequence, CreateMode.EPHEMERAL);
            pendingCreate = queue.createOn(session, request);
            queue.hooks().createSent(queue.path(), prefix);
            Reply listing = session.childrenNow(queue.fixed(queue.path()));
            String ours = listing.isOk() ? childWithPrefix(listing) : null;
            if (ours != null) {
                // The create made our node: its reply came before the listing's. Go on without waiting for the hop
                // that hands the create's reply over; the fencing token is read from it when asked for.
                position.enteredWith(LockNode.createdBy(
                        ZKPaths.makePath(queue.path(), ours), ours, session.sessionId(), pendingCreate));
                pendingCreate = null;
                queue.hooks().entered(queue.path(), ours, listing.children());
                return new Listing(listing);
            }
            Reply created = queue.awaitReply(pendingCreate, deadline);
            if (created == null) {
                return null;
            }
            if (created.isOk()) {
                pendingCreate = null;
                position.enteredWith(nodeOf(created.name(), created.stat(), session));
                queue.hooks().entered(queue.path(), position.node().name(), listing.children());
                Listing entered = new Listing(listing);
                return listing.isOk() && entered.holdsPlaceOf(position.node()) ? entered : position.list();
            }
            if (created.code() == Code.NONODE) {
                pendingCreate = null;
                queue.createParents();
            } else if (created.isRetryable()) {
                if (recover(session)) {
                    return position.list();
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
            Reply listing = queue.awaitReply(session.children(queue.fixed(queue.path())), deadline);
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
            Reply found = queue.awaitReply(session.exists(childPath), deadline);
            if (found == null) {
                return false;
            }
            if (found.isOk() && !found.isOwnedBy(session.sessionId())) {
                // Another session made a node with our protection id: not ours. Create ours under a fresh id.
                pendingCreate = null;
                prefix = NodeNames.newPrefix(queue.lockName());
                return false;
            }
            if (found.isOk()) {
                pendingCreate = null;
                position.enteredWith(nodeOf(childPath, found.stat(), session));
                logger.debug("{}: found {} after a lost create reply", queue.path(), position.node());
                return true;
            }
            if (!found.isRetryable()) {
                pendingCreate = null;
                return false;
            }
        }
    }

    /** Returns the child that carries our protected prefix, if the listing has one. */
    private String childWithPrefix(Reply listing) {
        for (String child : listing.children()) {
            if (child.startsWith(prefix)) {
                return child;
            }
        }
        return null;
    }

    /** Our place was lost (session ended, or our node deleted): delete what may be left of it and enter again. */
    private Listing reenter() throws InterruptedException {
        logger.warn("{}: lost our place {} while waiting; entering the queue again", queue.path(), position.node());
        position.leave();
        return enter();
    }

    /** Leaves the queue: removes our watch, deletes our node, and sweeps for a create whose reply never came. */
    private void abandon() {
        position.leave();
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

    private LockNode nodeOf(String fixedPath, Stat stat, ZkSession session) {
        String name = ZKPaths.getNodeFromPath(fixedPath);
        return new LockNode(ZKPaths.makePath(queue.path(), name), name, stat.getCzxid(), session.sessionId());
    }

    private long elapsedMicros() {
        return (System.nanoTime() - startNanos) / 1000;
    }
}
