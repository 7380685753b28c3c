package dev.zklock.recipes.locks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition that waits without a thread: the steps of {@link Attempt} and {@link Position}, each run as the
 * continuation of the ZooKeeper reply or watch event it waits for. Safe for use by multiple threads: continuations run
 * on ZooKeeper's event thread, the deadline on a timer thread, a cancel on the caller's; state changes are guarded by
 * this object, and once the outcome is decided no step runs and whatever a late reply created is removed.
 */
final class AsyncAttempt {
    /*
     * Implementation notes (see Attempt for the algorithm, which is the same).
     *
     * 1. Continuations never block: they only send requests, and they run on ZooKeeper's event thread. The outcome is
     *    completed by the caller of start() on another executor, so user stages never run on the event thread.
     * 2. The outcome is decided once (held, failed, timed out or cancelled). Deciding anything but "held" abandons:
     *    our watch is removed and our node deleted, without waiting. A reply that arrives later and created something
     *    (our node, a watch) finds the attempt over and removes it (AsyncAcquireTest).
     * 3. While disconnected, a one-shot connection-state listener resumes the attempt; the timer still bounds it.
     */
    private static final Logger logger = LoggerFactory.getLogger(AsyncAttempt.class);
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "zklock-async-deadlines");
        thread.setDaemon(true);
        return thread;
    });

    private final LockQueue queue;
    private final Deadline deadline;
    private final Duration timeout;
    private final CompletableFuture<LockNode> outcome = new CompletableFuture<>();

    private boolean over; // guarded by this
    private String prefix; // guarded by this
    private LockNode node; // guarded by this
    private NodeWatcher watcher; // guarded by this
    private String watchedPath; // guarded by this
    private ZkSession watchSession; // guarded by this
    private String lostCreate; // guarded by this: the prefix of a create whose reply was lost, until found or redone

    /** @param timeout how long the acquire may take, or null for as long as it takes */
    AsyncAttempt(LockQueue queue, Duration timeout) {
        this.queue = queue;
        this.timeout = timeout;
        this.deadline = timeout == null ? Deadline.forever() : Deadline.after(Checks.toNanos(timeout));
    }

    /** Starts the attempt; the future completes with our node once held. Cancelling it withdraws from the queue. */
    CompletableFuture<LockNode> start() {
        outcome.whenComplete((held, failure) -> {
            if (failure != null) {
                abandon();
            }
        });
        if (timeout != null) {
            var timer = TIMER.schedule(this::timeOut, deadline.remainingNanos(), TimeUnit.NANOSECONDS);
            outcome.whenComplete((held, failure) -> timer.cancel(false));
        }
        synchronized (this) {
            prefix = NodeNames.newPrefix(queue.lockName());
        }
        whenConnected(this::create);
        return outcome;
    }

    private void timeOut() {
        outcome.completeExceptionally(new LockTimeoutException(queue.path(), timeout));
    }

    /** Runs {@code step} on a connected session now, or as soon as the client reconnects. */
    private void whenConnected(Consumer<ZkSession> step) {
        CuratorFramework client = queue.client();
        run(() -> {
            Checks.requireStarted(client, queue.path());
            ZkSession session = client.getZookeeperClient().isConnected() ? currentSession() : null;
            if (session != null) {
                step.accept(session);
                return;
            }
            AtomicBoolean resumed = new AtomicBoolean();
            ConnectionStateListener once = new ConnectionStateListener() {
                @Override
                public void stateChanged(CuratorFramework c, org.apache.curator.framework.state.ConnectionState s) {
                    if (s.isConnected() && resumed.compareAndSet(false, true)) {
                        c.getConnectionStateListenable().removeListener(this);
                        whenConnected(step);
                    }
                }
            };
            client.getConnectionStateListenable().addListener(once);
            if (client.getZookeeperClient().isConnected() && resumed.compareAndSet(false, true)) {
                client.getConnectionStateListenable().removeListener(once);
                whenConnected(step);
            }
        });
    }

    private void create(ZkSession session) {
        String ourPrefix;
        synchronized (this) {
            ourPrefix = prefix;
        }
        CreateRequest request = queue.createRequest(ourPrefix, CreateMode.EPHEMERAL_SEQUENTIAL);
        CompletableFuture<Reply> created = queue.createOn(session, request);
        CompletableFuture<Reply> listed = session.children(queue.fixed(queue.path()));
        // Not run(): the reply to a create is handled even when the attempt is over, so that what it made is removed.
        created.thenAccept(reply -> onCreated(session, ourPrefix, reply, listed));
    }

    private void onCreated(ZkSession session, String ourPrefix, Reply created, CompletableFuture<Reply> listed) {
        if (created.isOk()) {
            LockNode ours = nodeOf(created.name(), created.stat().getCzxid(), session.sessionId());
            if (!keep(ours)) {
                return;
            }
        } else if (created.isRetryable()) {
            boolean late;
            synchronized (this) {
                late = over;
                lostCreate = late ? null : ourPrefix;
            }
            if (late) {
                queue.sweepInBackground(ourPrefix);
                return;
            }
        }
        run(() -> afterCreate(session, ourPrefix, created, listed));
    }

    private void afterCreate(ZkSession session, String ourPrefix, Reply created, CompletableFuture<Reply> listed) {
        if (created.isOk()) {
            LockNode ours;
            synchronized (this) {
                ours = node;
            }
            listed.thenAccept(listing -> run(() -> {
                Listing entered = new Listing(listing);
                if (listing.isOk() && entered.holdsPlaceOf(ours)) {
                    decide(entered);
                } else {
                    list();
                }
            }));
        } else if (created.code() == Code.NONODE) {
            createParentsThen(() -> whenConnected(this::create));
        } else if (created.isRetryable()) {
            whenConnected(now -> recover(session.sessionId(), ourPrefix, now));
        } else {
            fail(queue.failure("create a lock node", KeeperException.create(created.code(), queue.path()), true));
        }
    }

    /** After a create whose reply was lost: find our node by its prefix (same session only) or create again. */
    private void recover(long sessionBefore, String ourPrefix, ZkSession session) {
        if (session.sessionId() != sessionBefore) {
            enterUnderFreshId(session);
            return;
        }
        session.sync(queue.fixed(queue.path()));
        session.children(queue.fixed(queue.path()))
                .thenAccept(listing -> run(() -> {
                    if (listing.isRetryable()) {
                        whenConnected(now -> recover(sessionBefore, ourPrefix, now));
                        return;
                    }
                    String child = listing.children().stream()
                            .filter(name -> name.startsWith(ourPrefix))
                            .findFirst()
                            .orElse(null);
                    if (child == null) {
                        synchronized (this) {
                            lostCreate = null; // after a sync, a listing without it: the create made nothing
                        }
                        create(session);
                        return;
                    }
                    String childPath = queue.fixed(ZKPaths.makePath(queue.path(), child));
                    session.exists(childPath)
                            .thenAccept(found -> run(() -> {
                                if (found.isOwnedBy(session.sessionId())
                                        && keep(nodeOf(childPath, found.stat().getCzxid(), session.sessionId()))) {
                                    list();
                                } else if (found.isOk() && !found.isOwnedBy(session.sessionId())) {
                                    enterUnderFreshId(session); // another session's node bears our id: not ours
                                } else if (!found.isOk()) {
                                    whenConnected(now -> recover(sessionBefore, ourPrefix, now));
                                }
                            }));
                }));
    }

    /** Creates our node again under a fresh protection id (a node under the old one is not ours, or is gone). */
    private void enterUnderFreshId(ZkSession session) {
        synchronized (this) {
            prefix = NodeNames.newPrefix(queue.lockName());
            lostCreate = null; // a node under the old id is not ours, or went with its session
        }
        create(session);
    }

    private void decide(Listing listing) {
        LockNode ours;
        synchronized (this) {
            ours = node;
        }
        if (!listing.holdsPlaceOf(ours)) {
            logger.warn("{}: lost our place {} while waiting; entering the queue again", queue.path(), ours);
            synchronized (this) {
                node = null;
                prefix = NodeNames.newPrefix(queue.lockName());
            }
            deleteQuietly(ours);
            whenConnected(this::create);
            return;
        }
        LockQueueView view = queue.view(listing.children(), ours.name());
        LockDecision decision = queue.decide(view);
        if (decision.holdsLock()) {
            if (view.ourIndex() == 0) {
                FrontNodes.add(queue.fixed(ours.path()));
            }
            outcome.complete(ours);
        } else if (deadline.hasPassed()) {
            timeOut();
        } else {
            watch(view, decision);
        }
    }

    private void watch(LockQueueView view, LockDecision decision) {
        String nodeToWatch = decision.nodeToWatch();
        boolean mayAssume = !decision.relistsWhenGone();
        boolean onlyBlocker =
                mayAssume && queue.decide(view.without(nodeToWatch)).holdsLock();
        String path = queue.fixed(ZKPaths.makePath(queue.path(), nodeToWatch));
        whenConnected(session -> {
            NodeWatcher nodeWatcher = new NodeWatcher(path, session.sessionId());
            synchronized (this) {
                if (over) {
                    return;
                }
                watcher = nodeWatcher;
                watchedPath = path;
                watchSession = session;
            }
            session.watchData(path, nodeWatcher)
                    .thenAccept(reply -> run(() -> {
                        if (reply.isOk()) {
                            nodeWatcher
                                    .wakeUp()
                                    .thenAccept(wake -> run(() -> {
                                        clearWatch();
                                        switch (wake) {
                                            case DELETED, DELETED_FROM_FRONT -> afterDeletion(
                                                    view,
                                                    nodeToWatch,
                                                    onlyBlocker,
                                                    mayAssume && wake == NodeWatcher.Wake.DELETED_FROM_FRONT,
                                                    session.sessionId());
                                            case SESSION_ENDED -> list();
                                            default -> watch(view, decision);
                                        }
                                    }));
                            return;
                        }
                        clearWatch();
                        if (reply.code() == Code.NONODE) {
                            boolean fromFront = mayAssume && FrontNodes.contains(path);
                            ReleasesInFlight.after(path, session.sessionId())
                                    .thenRun(() -> run(() -> afterDeletion(
                                            view, nodeToWatch, onlyBlocker, fromFront, session.sessionId())));
                        } else if (reply.isRetryable()) {
                            watch(view, decision);
                        } else {
                            fail(queue.failure(
                                    "watch node " + nodeToWatch, KeeperException.create(reply.code(), path), true));
                        }
                    }));
        });
    }

    private void afterDeletion(
            LockQueueView view, String watched, boolean onlyBlocker, boolean fromFront, long sessionId) {
        if (onlyBlocker) {
            decide(new Listing(view.without(watched).children(), sessionId));
        } else if (fromFront) {
            decide(new Listing(view.withoutUpTo(watched).children(), sessionId));
        } else {
            list();
        }
    }

    private void list() {
        whenConnected(session -> session.children(queue.fixed(queue.path()))
                .thenAccept(reply -> run(() -> {
                    if (reply.isOk()) {
                        decide(new Listing(reply));
                    } else if (reply.code() == Code.NONODE) {
                        decide(new Listing(List.of(), session.sessionId()));
                    } else if (reply.isRetryable()) {
                        list();
                    } else {
                        fail(queue.failure("list the queue", KeeperException.create(reply.code(), queue.path()), true));
                    }
                })));
    }

    private void createParentsThen(Runnable next) {
        try {
            queue.client()
                    .create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .inBackground((client, event) -> run(() -> {
                        Code code = Code.get(event.getResultCode());
                        if (code == Code.OK || code == Code.NODEEXISTS) {
                            next.run();
                        } else {
                            fail(queue.failure(
                                    "create the lock path", KeeperException.create(code, queue.path()), true));
                        }
                    }))
                    .forPath(queue.path(), new byte[0]);
        } catch (Exception e) {
            fail(queue.failure("create the lock path", e, true));
        }
    }

    /** Keeps {@code created} as our node unless the attempt is over, in which case it is deleted. */
    private boolean keep(LockNode created) {
        synchronized (this) {
            lostCreate = null;
            if (!over) {
                node = created;
                return true;
            }
        }
        deleteQuietly(created);
        return false;
    }

    private synchronized void clearWatch() {
        watcher = null;
        watchedPath = null;
        watchSession = null;
    }

    /** Runs a step unless the attempt is over; a step that throws ends the attempt with that failure. */
    private void run(Runnable step) {
        synchronized (this) {
            if (over) {
                return;
            }
        }
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            fail(e);
        }
    }

    private void fail(Throwable failure) {
        outcome.completeExceptionally(failure);
    }

    /** The attempt ends without the lock: remove our watch and delete our node, without waiting for either. */
    private void abandon() {
        LockNode ours;
        String lostCreate;
        synchronized (this) {
            over = true;
            ours = node;
            node = null;
            lostCreate = this.lostCreate;
            if (watcher != null) {
                watchSession.removeWatch(watchedPath, watcher);
            }
        }
        if (lostCreate != null) {
            // Only the protected prefix can find what a create whose reply was lost made. A create whose reply is yet
            // to come needs nothing here: onCreated deletes what it made, or sweeps if that reply is lost.
            queue.sweepInBackground(lostCreate);
        }
        clearWatch();
        if (ours != null) {
            FrontNodes.released(queue.fixed(ours.path()));
            deleteQuietly(ours);
        }
    }

    private void deleteQuietly(LockNode doomed) {
        ZkSession session = queue.client().getZookeeperClient().isConnected() ? currentSession() : null;
        if (session == null) {
            queue.deleteInBackground(doomed.path());
            return;
        }
        session.delete(queue.fixed(doomed.path())).thenAccept(reply -> {
            if (reply.isRetryable()) {
                queue.deleteInBackground(doomed.path());
            }
        });
    }

    private ZkSession currentSession() {
        try {
            return ZkSession.current(queue.client());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private LockNode nodeOf(String fixedPath, long czxid, long sessionId) {
        String name = ZKPaths.getNodeFromPath(fixedPath);
        return new LockNode(ZKPaths.makePath(queue.path(), name), name, czxid, sessionId);
    }
}
