package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The ZooKeeper requests of the {@link Command}s of one acquisition over one or several queues, each answered as the
 * {@link Event} its reply means. Both runners send through here, so a reply means the same to either. Immutable and
 * safe for use by multiple threads; paths handed to the {@link SessionPort} are fixed for the client's namespace.
 */
public final class QueueRequests {
    private final List<LockPath> queues;

    public QueueRequests(List<LockPath> queues) {
        this.queues = List.copyOf(queues);
    }

    public LockPath first() {
        return queues.get(0);
    }

    public List<LockPath> queues() {
        return queues;
    }

    /**
     * Sends the create of our node in every queue: one create, or one transaction for several. Answers
     * {@link Event.Created} or {@link Event.Failed}. A create of one node in the queue's order is counted by the client's
     * {@link QueueTails}, which names, with the reply, the node of this client right before ours if there is one, and
     * says, when the create is sent, what of ours it likely comes right behind ({@link Sent#ownAhead}): the runner's
     * cue to leave out the listing ({@link Acquisition#listsBehindCreate}).
     */
    public Sent create(SessionPort session, Command.Create create) {
        if (queues.size() > 1 || create.alongsideSequence() != null) {
            return new Sent(
                    createAll(
                            session,
                            queues,
                            queues.stream()
                                    .map(queue -> createRequest(queue, create))
                                    .toList()),
                    null);
        }
        LockPath queue = first();
        long sessionId = session.sessionId();
        String path = queue.fixed(queue.path());
        QueueTails tails = queue.context().queueTails();
        String ahead = tails.sending(path, sessionId, create.prefix());
        CompletableFuture<Event> reply = createOn(session, createRequest(queue, create), answer -> {
            if (answer instanceof Reply.Created created) {
                LockNode ours = nodeOf(queue, created.path(), created.czxid(), sessionId);
                LockNode before = tails.created(path, sessionId, create.prefix(), ours);
                return new Event.Created(sessionId, List.of(ours), before);
            }
            tails.created(path, sessionId, create.prefix(), null);
            return new Event.Failed(answer.code());
        });
        return new Sent(reply, ahead);
    }

    /**
     * A create on its way.
     *
     * @param reply its reply, as an event
     * @param ownAhead the prefix or name of the node of this client it is likely right behind ({@link
     *     QueueTails#sending}), or null
     */
    public record Sent(CompletableFuture<Event> reply, String ownAhead) {}

    /**
     * Sends the create of {@code count} sequential nodes named {@code prefix} in the one queue (a semaphore's leases):
     * one create, or one transaction for several. Answers {@link Event.Created} or {@link Event.Failed}.
     */
    public CompletableFuture<Event> createSeveral(SessionPort session, String prefix, int count) {
        CreateRequest request = first().createRequest(prefix, CreateMode.EPHEMERAL_SEQUENTIAL);
        return createAll(session, Collections.nCopies(count, first()), Collections.nCopies(count, request));
    }

    /** Creates {@code requests.get(i)} in {@code targets.get(i)}: one create, or one transaction. */
    private static CompletableFuture<Event> createAll(
            SessionPort session, List<LockPath> targets, List<CreateRequest> requests) {
        long sessionId = session.sessionId();
        if (targets.size() == 1) {
            return createOn(session, requests.get(0))
                    .thenApply(reply -> reply instanceof Reply.Created created
                            ? new Event.Created(
                                    sessionId,
                                    List.of(nodeOf(targets.get(0), created.path(), created.czxid(), sessionId)))
                            : new Event.Failed(reply.code()));
        }
        List<Op> creates = new ArrayList<>();
        for (CreateRequest request : requests) {
            creates.add(Op.create(
                    request.getPath(),
                    request.getData(),
                    CreateOptions.newBuilder(
                                    request.getAcl(),
                                    CreateMode.fromFlag(request.getFlags(), CreateMode.EPHEMERAL_SEQUENTIAL))
                            .build()));
        }
        return session.multi(creates).thenApply(reply -> {
            if (!reply.isOk()) {
                return new Event.Failed(reply.code());
            }
            List<LockNode> nodes = new ArrayList<>();
            for (int i = 0; i < targets.size(); i++) {
                OpResult.CreateResult result =
                        (OpResult.CreateResult) reply.results().get(i);
                nodes.add(nodeOf(
                        targets.get(i), result.getPath(), result.getStat().getCzxid(), sessionId));
            }
            return new Event.Created(sessionId, nodes);
        });
    }

    private static CreateRequest createRequest(LockPath queue, Command.Create create) {
        return create.alongsideSequence() == null
                ? queue.createRequest(create.prefix(), CreateMode.EPHEMERAL_SEQUENTIAL)
                : queue.createRequest(create.prefix() + create.alongsideSequence(), CreateMode.EPHEMERAL);
    }

    /** Lists every queue, in one read-only transaction for several: answers {@link Event.Listed} or a failure. */
    public CompletableFuture<Event> listAll(SessionPort session) {
        if (queues.size() == 1) {
            return list(session, 0);
        }
        List<String> paths =
                queues.stream().map(queue -> queue.fixed(queue.path())).toList();
        return session.childrenOfAll(paths).thenApply(replies -> {
            List<List<String>> listings = new ArrayList<>();
            String refusal = null;
            for (int i = 0; i < replies.size(); i++) {
                Reply reply = replies.get(i);
                List<String> children = reply instanceof Reply.Children listed
                        ? listed.children()
                        : reply.code() == Code.NONODE ? List.of() : null;
                listings.add(children);
                if (refusal == null && children != null) {
                    refusal = LayoutGuard.refusal(queues.get(i), children, null);
                }
            }
            return new Event.Listed(session.sessionId(), listings, refusal);
        });
    }

    /**
     * Lists queue {@code queue}: {@link Event.Listed} (empty for a missing lock path) or {@link Event.Failed}. A
     * semaphore's internal mutex lists the semaphore's path beside, in the same request ({@link LayoutGuard}).
     */
    public CompletableFuture<Event> list(SessionPort session, int queue) {
        LockPath lockPath = queues.get(queue);
        if (lockPath.semaphorePath() != null) {
            return listGuarded(session, lockPath);
        }
        return session.children(lockPath.fixed(lockPath.path()))
                .thenApply(reply -> listed(session, lockPath, reply, null));
    }

    /**
     * As {@link #list}, waiting for the reply on the calling thread: with ZooKeeper's synchronous call, one thread hop
     * less ({@link SessionPort#childrenNow}).
     */
    public Event listNow(SessionPort session, int queue) throws InterruptedException {
        LockPath lockPath = queues.get(queue);
        if (lockPath.semaphorePath() != null) {
            try {
                return Parking.get(listGuarded(session, lockPath));
            } catch (ExecutionException e) {
                throw new IllegalStateException("listing of " + lockPath.path() + " failed", e.getCause());
            }
        }
        return listed(session, lockPath, session.childrenNow(lockPath.fixed(lockPath.path())), null);
    }

    /** Lists a semaphore's internal mutex and the semaphore's path in one read-only transaction. */
    private static CompletableFuture<Event> listGuarded(SessionPort session, LockPath mutex) {
        List<String> paths = List.of(mutex.fixed(mutex.path()), mutex.fixed(mutex.semaphorePath()));
        return session.childrenOfAll(paths).thenApply(replies -> {
            Reply semaphore = replies.get(1);
            List<String> beside = semaphore instanceof Reply.Children listed ? listed.children() : List.of();
            return listed(session, mutex, replies.get(0), beside);
        });
    }

    private static Event listed(SessionPort session, LockPath lockPath, Reply reply, List<String> semaphore) {
        if (reply instanceof Reply.Children listed) {
            return new Event.Listed(
                    session.sessionId(),
                    List.of(listed.children()),
                    LayoutGuard.refusal(lockPath, listed.children(), semaphore));
        }
        if (reply.code() == Code.NONODE) {
            return new Event.Listed(
                    session.sessionId(), List.of(List.of()), LayoutGuard.refusal(lockPath, List.of(), semaphore));
        }
        return new Event.Failed(reply.code());
    }

    /**
     * After a lost create reply: on the session that sent it, a sync (so the server we read from has caught up with a
     * create still in flight) and a listing of every queue; on another session, at once {@code sameSession} false.
     */
    public CompletableFuture<Event> recoveryListing(SessionPort session, long createSession) {
        if (session.sessionId() != createSession) {
            return CompletableFuture.completedFuture(new Event.RecoveryListed(false, List.of()));
        }
        session.sync(first().fixed(first().path()));
        return listAll(session).thenApply(event -> {
            if (event instanceof Event.Listed listed) {
                return new Event.RecoveryListed(true, listed.children());
            }
            return event;
        });
    }

    /** Reads the stat of a node found by our prefix: {@link Event.OwnerChecked}, or a retryable failure. */
    public CompletableFuture<Event> checkOwner(SessionPort session, int queue, String name) {
        return session.exists(fixedPath(queue, name)).thenApply(reply -> {
            if (reply instanceof Reply.NodeStat found) {
                return new Event.OwnerChecked(
                        found.isOwnedBy(session.sessionId()),
                        session.sessionId(),
                        found.stat().getCzxid());
            }
            if (reply.code() == Code.NONODE) {
                return new Event.OwnerChecked(false, session.sessionId(), 0);
            }
            return new Event.Failed(reply.code());
        });
    }

    /**
     * Makes every lock path as a container, and its parents if need be, as Curator's locks do: one request when only
     * the lock path is missing (the server reaps an empty container), more on first use of a path; waits for each on
     * the calling thread ({@link ClientPort#makeContainerNow}).
     */
    public void makeParents() throws InterruptedException {
        for (LockPath queue : queues) {
            queue.context().port().makeContainerNow(queue);
        }
    }

    private static CompletableFuture<Reply> createOn(SessionPort session, CreateRequest request) {
        return createOn(session, request, Function.identity());
    }

    /** Sends {@code request}; {@code onReply} reads the reply on ZooKeeper's event thread ({@link ZooKeeperHandle}). */
    private static <T> CompletableFuture<T> createOn(
            SessionPort session, CreateRequest request, Function<Reply, T> onReply) {
        return session.create(
                request.getPath(),
                request.getData(),
                request.getAcl(),
                CreateMode.fromFlag(request.getFlags(), CreateMode.EPHEMERAL_SEQUENTIAL),
                onReply);
    }

    public String fixedPath(int queue, String name) {
        return queues.get(queue).fixedChild(name);
    }

    /**
     * Marks the nodes just granted with no node before them: their release tells the waiters behind them so
     * ({@link FrontNodes}); and, for a grant of nodes some of which were last seen before a wait, each node as to be
     * vouched for before it is admitted ({@link LockNode#isSeenBeforeAWait()}).
     */
    public void granted(Command.Granted granted) {
        for (int i = 0; i < granted.nodes().size(); i++) {
            if (granted.front().get(i)) {
                granted.nodes().get(i).grantedAtFront();
            }
            if (granted.seenBeforeAWait()) {
                granted.nodes().get(i).seenBeforeAWait();
            }
        }
    }

    /**
     * Deletes {@code nodes} without waiting: on the current session if connected, else (or if the connection is lost
     * on the way) by Curator's guaranteed delete when it returns. Never blocks, so it may run on ZooKeeper's event
     * thread; one request per node. The future completes once every delete is answered or handed to the background.
     */
    public CompletableFuture<Void> deleteLater(List<LockNode> nodes) {
        LockPath queue = first();
        ClientPort client = queue.port();
        SessionPort session = client.connected();
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (LockNode node : nodes) {
            node.queue().deleting(node.name());
            if (session == null) {
                client.deleteInBackground(queue, node.path());
            } else {
                CompletableFuture<Void> answered = session.delete(queue.fixed(node.path()))
                        .thenAccept(reply -> {
                            if (reply.isRetryable()) {
                                client.deleteInBackground(queue, node.path());
                            }
                        });
                all = all.thenCombine(answered, (a, b) -> null);
            }
        }
        return all;
    }

    /**
     * Withdraws an acquisition its caller no longer waits for: cancels {@code taking}, and deletes the nodes of a grant
     * that came first ({@link #deleteLater}). Returns the future of those deletes, or null if nothing was granted.
     */
    public CompletableFuture<Void> withdraw(CompletableFuture<List<LockNode>> taking) {
        if (!taking.cancel(false) && !taking.isCompletedExceptionally()) {
            return deleteLater(taking.join()); // granted as the caller gave up
        }
        return null;
    }

    /** Does a cleanup without waiting: deletes its nodes and sweeps for its prefix; see {@link #deleteLater}. */
    public CompletableFuture<Void> cleanUp(Command.CleanUp cleanUp) {
        CompletableFuture<Void> deleted = deleteLater(cleanUp.nodes());
        if (cleanUp.sweepPrefix() != null) {
            sweep(cleanUp.sweepPrefix());
        }
        return deleted;
    }

    /** Finds, in the background, every node a create with {@code prefix} may have made, and deletes it. */
    public void sweep(String prefix) {
        for (LockPath queue : queues) {
            queue.port().sweepInBackground(queue, prefix);
        }
    }

    private static LockNode nodeOf(LockPath queue, String fixedPath, long czxid, long sessionId) {
        return new LockNode(queue, ZKPaths.getNodeFromPath(fixedPath), czxid, sessionId);
    }
}
