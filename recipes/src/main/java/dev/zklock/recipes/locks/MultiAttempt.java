package dev.zklock.recipes.locks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of several exclusive locks at once: a place in every queue, taken in one transaction, then a wait
 * in each queue in turn until all hold. Confined to the acquiring thread.
 */
final class MultiAttempt {
    /*
     * Implementation notes.
     *
     * 1. Entering costs one round trip and two requests for any number of paths: one multi() creates our protected
     *    EPHEMERAL_SEQUENTIAL node in every queue (create2 operations, so each result carries its stat), and one
     *    read-only multi() listing every path is pipelined behind it on the same session.
     * 2. All our nodes enter their queues at one point of ZooKeeper's total order. Two multi-locks that share paths are
     *    therefore in the same order in every shared queue: the earlier one is ahead everywhere, so neither can wait
     *    for the other in a cycle, whatever order their paths were given in (ZkMultiLockTest, deadlock case).
     * 3. Holding is monotone: once our node is first in a queue, it stays first. So we wait in one queue at a time, in
     *    path order, deciding first on the listing read at entry: nodes only leave, so a stale "holds" is still true.
     * 4. A lost create is found by its prefix as in Attempt; the transaction is atomic, so finding our node in the
     *    first path means it is in every path. Losing our place in any queue (session ended) means leaving all and
     *    entering all again.
     * 5. Giving up leaves every queue; a transaction whose reply never came is swept for in every path.
     */
    private static final Logger logger = LoggerFactory.getLogger(MultiAttempt.class);

    /** How waiting in every queue in turn ended. */
    private enum Outcome {
        HELD,
        LOST_PLACE,
        TIMED_OUT
    }

    private final List<LockQueue> queues;
    private final LockQueue first;
    private final Deadline deadline;
    private final String lockName;
    private final List<Position> positions = new ArrayList<>();

    private String prefix;
    private CompletableFuture<MultiReply> pendingCreate;

    MultiAttempt(List<LockQueue> queues, Deadline deadline, String lockName) {
        this.queues = queues;
        this.first = queues.get(0);
        this.deadline = deadline;
        this.lockName = lockName;
        for (LockQueue queue : queues) {
            positions.add(new Position(queue, deadline));
        }
    }

    Optional<List<LockNode>> run() throws InterruptedException {
        return GiveUp.onFailure(this::runOnce, this::abandon);
    }

    private Optional<List<LockNode>> runOnce() throws InterruptedException {
        List<Listing> listings = enter();
        while (listings != null) {
            Outcome outcome = waitInTurn(listings);
            if (outcome == Outcome.HELD) {
                List<LockNode> nodes = positions.stream().map(Position::node).toList();
                logger.debug("{} and {} more: hold {}", first.path(), queues.size() - 1, nodes);
                return Optional.of(nodes);
            }
            listings = outcome == Outcome.LOST_PLACE ? reenter() : null;
        }
        abandon();
        return Optional.empty();
    }

    /** Waits in each queue in turn, starting from the listings read at entry. */
    private Outcome waitInTurn(List<Listing> listings) throws InterruptedException {
        for (int i = 0; i < positions.size(); i++) {
            Position position = positions.get(i);
            Listing listing = listings.get(i);
            while (true) {
                if (listing == null) {
                    return Outcome.TIMED_OUT;
                }
                if (!listing.holdsPlaceOf(position.node())) {
                    return Outcome.LOST_PLACE;
                }
                LockQueueView view = position.view(listing);
                LockDecision decision = position.queue().decide(view);
                if (decision.holdsLock()) {
                    position.granted(view);
                    break;
                }
                if (deadline.hasPassed()) {
                    return Outcome.TIMED_OUT;
                }
                listing = position.await(view, decision);
            }
        }
        return Outcome.HELD;
    }

    /** Creates our nodes in one transaction and reads the pipelined listings; null at the deadline. */
    private List<Listing> enter() throws InterruptedException {
        prefix = NodeNames.newPrefix(lockName);
        while (true) {
            ZkSession session = first.connectedSession(deadline);
            if (session == null) {
                return null;
            }
            List<Op> creates = new ArrayList<>();
            for (LockQueue queue : queues) {
                CreateRequest request = queue.createRequest(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
                creates.add(Op.create(
                        request.getPath(),
                        request.getData(),
                        CreateOptions.newBuilder(request.getAcl(), CreateMode.EPHEMERAL_SEQUENTIAL)
                                .build()));
            }
            pendingCreate = session.multi(creates);
            CompletableFuture<List<Reply>> listed = session.childrenOfAll(fixedPaths());
            first.hooks().createSent(first.path(), prefix);
            MultiReply created = deadline.await(pendingCreate, first.requestTimeoutNanos());
            if (created == null) {
                return null;
            }
            if (created.isOk()) {
                pendingCreate = null;
                for (int i = 0; i < positions.size(); i++) {
                    OpResult.CreateResult result =
                            (OpResult.CreateResult) created.results().get(i);
                    positions.get(i).enteredWith(nodeOf(queues.get(i), result.getPath(), result.getStat(), session));
                }
                return listingsAfterEntry(listed);
            }
            if (created.code() == Code.NONODE) {
                pendingCreate = null;
                for (LockQueue queue : queues) {
                    queue.createParents();
                }
            } else if (created.isRetryable()) {
                if (recover(session)) {
                    return listAll();
                }
                if (pendingCreate != null) {
                    return null;
                }
            } else {
                pendingCreate = null;
                throw first.failure(
                        "create lock nodes in " + queues.size() + " queues",
                        KeeperException.create(created.code()),
                        true);
            }
        }
    }

    private List<Listing> listingsAfterEntry(CompletableFuture<List<Reply>> listed) throws InterruptedException {
        List<Reply> replies = deadline.await(listed, first.requestTimeoutNanos());
        if (replies == null) {
            return null;
        }
        List<Listing> listings = new ArrayList<>();
        for (int i = 0; i < positions.size(); i++) {
            Reply reply = replies.get(i);
            Listing listing = new Listing(reply);
            listings.add(
                    reply.isOk() && listing.holdsPlaceOf(positions.get(i).node())
                            ? listing
                            : positions.get(i).list());
        }
        return listings;
    }

    private List<String> fixedPaths() {
        List<String> paths = new ArrayList<>();
        for (LockQueue queue : queues) {
            paths.add(queue.fixed(queue.path()));
        }
        return paths;
    }

    private List<Listing> listAll() throws InterruptedException {
        List<Listing> listings = new ArrayList<>();
        for (Position position : positions) {
            listings.add(position.list());
        }
        return listings;
    }

    /**
     * Finds out whether a transaction whose reply was lost made our nodes: true if it did (every position is set),
     * false if it must be sent again (the pending create is cleared) or the deadline passed (it is kept).
     */
    private boolean recover(ZkSession before) throws InterruptedException {
        while (true) {
            ZkSession session = first.connectedSession(deadline);
            if (session == null) {
                return false;
            }
            if (session.sessionId() != before.sessionId()) {
                pendingCreate = null;
                prefix = NodeNames.newPrefix(lockName);
                return false;
            }
            session.sync(first.fixed(first.path()));
            List<Reply> listings = deadline.await(session.childrenOfAll(fixedPaths()), first.requestTimeoutNanos());
            if (listings == null) {
                return false;
            }
            List<String> ours = new ArrayList<>();
            for (Reply listing : listings) {
                listing.children().stream()
                        .filter(name -> name.startsWith(prefix))
                        .findFirst()
                        .ifPresent(ours::add);
            }
            if (ours.isEmpty()) {
                pendingCreate = null;
                return false;
            }
            if (ours.size() < queues.size()) {
                continue; // a listing failed on the way; the transaction is atomic, so look again
            }
            String firstNode = first.fixed(ZKPaths.makePath(first.path(), ours.get(0)));
            Reply stat = first.awaitReply(session.exists(firstNode), deadline);
            if (stat == null) {
                return false;
            }
            if (stat.isOk() && !stat.isOwnedBy(session.sessionId())) {
                // Another session made a node with our protection id: not ours. Create ours under a fresh id.
                pendingCreate = null;
                prefix = NodeNames.newPrefix(lockName);
                return false;
            }
            if (stat.isOk()) {
                pendingCreate = null;
                for (int i = 0; i < positions.size(); i++) {
                    LockQueue queue = queues.get(i);
                    String path = queue.fixed(ZKPaths.makePath(queue.path(), ours.get(i)));
                    positions.get(i).enteredWith(nodeOf(queue, path, stat.stat(), session));
                }
                return true;
            }
        }
    }

    private List<Listing> reenter() throws InterruptedException {
        logger.warn(
                "{} and {} more: lost our place while waiting; entering every queue again",
                first.path(),
                queues.size() - 1);
        for (Position position : positions) {
            position.leave();
        }
        return enter();
    }

    private void abandon() {
        Failures failures = new Failures();
        for (Position position : positions) {
            try {
                position.leave();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (pendingCreate != null) {
            String lostPrefix = prefix;
            pendingCreate.whenComplete((reply, error) -> {
                if (reply != null && reply.isOk()) {
                    for (int i = 0; i < queues.size(); i++) {
                        LockQueue queue = queues.get(i);
                        String created =
                                ((OpResult.CreateResult) reply.results().get(i)).getPath();
                        queue.deleteInBackground(ZKPaths.makePath(queue.path(), ZKPaths.getNodeFromPath(created)));
                    }
                } else if (reply == null || reply.isRetryable()) {
                    queues.forEach(queue -> queue.sweepInBackground(lostPrefix));
                }
            });
            pendingCreate = null;
        }
        failures.throwIfAny();
    }

    private static LockNode nodeOf(LockQueue queue, String fixedPath, Stat stat, ZkSession session) {
        String name = ZKPaths.getNodeFromPath(fixedPath);
        return new LockNode(ZKPaths.makePath(queue.path(), name), name, stat.getCzxid(), session.sessionId());
    }
}
