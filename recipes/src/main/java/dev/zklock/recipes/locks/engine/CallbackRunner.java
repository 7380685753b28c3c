package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Runs one {@link Acquisition} with no thread waiting ({@link AsyncSteps}): the runner of {@code acquireAsync()}, and of
 * a semaphore's internal mutex. Safe for use by multiple threads: the acquisition and the watch are guarded by this
 * object; continuations never block.
 */
public final class CallbackRunner extends AsyncSteps<List<LockNode>> {
    private final QueueRequests requests;
    private final Duration timeout;
    private volatile Thread parked; // the thread waiting in await() for the outcome, if any
    private CompletableFuture<Void> left; // guarded by this: made at an end, done once its deletes are answered

    private long createSession; // guarded by this

    /** @param timeout how long the acquire may take, or null for as long as it takes */
    public CallbackRunner(List<LockPath> queues, Duration timeout) {
        this(queues, timeout == null ? Deadline.forever() : Deadline.after(Checks.toNanos(timeout)), timeout);
    }

    /**
     * @param deadline the deadline of the acquire
     * @param timeout the timeout it came from, named by a {@link LockTimeoutException}; null for as long as it takes
     */
    public CallbackRunner(List<LockPath> queues, Deadline deadline, Duration timeout) {
        this(new QueueRequests(queues), deadline, timeout);
    }

    /**
     * @param requests the requests of the queues, which a lock path keeps for its acquisitions of it alone
     * @param deadline the deadline of the acquire
     * @param timeout the timeout it came from, named by a {@link LockTimeoutException}; null for as long as it takes
     */
    public CallbackRunner(QueueRequests requests, Deadline deadline, Duration timeout) {
        this(requests, deadline, timeout, new Acquisition(requests.queues(), null));
    }

    private CallbackRunner(QueueRequests requests, Deadline deadline, Duration timeout, Acquisition acquisition) {
        super(deadline, acquisition);
        this.requests = requests;
        this.timeout = timeout;
    }

    @Override
    LockPath first() {
        return requests.first();
    }

    /**
     * Starts the acquisition; the future completes with our nodes once held, or fails with
     * {@link LockTimeoutException} or the error. Cancelling it ends the acquisition and deletes our nodes.
     */
    public CompletableFuture<List<LockNode>> start() {
        begin();
        return this;
    }

    /**
     * Completes the outcome, which does itself on completion what a dependent stage would do (one object and two fewer
     * for each waiting thread): wakes the thread parked in {@link #await}.
     */
    @Override
    public boolean complete(List<LockNode> nodes) {
        return completed(super.complete(nodes), false);
    }

    /** Fails the outcome; on completion, as {@link #complete}, and ends the acquisition (unless it ended itself). */
    @Override
    public boolean completeExceptionally(Throwable failure) {
        return completed(super.completeExceptionally(failure), true);
    }

    /** Cancels the outcome; on completion, as {@link #completeExceptionally}: the acquisition ends, its nodes deleted. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return completed(super.cancel(mayInterruptIfRunning), true);
    }

    private boolean completed(boolean now, boolean failed) {
        if (now) {
            Thread waiting = parked;
            if (waiting != null) {
                Parking.unpark(waiting);
            }
            if (failed) {
                end(null);
            }
        }
        return now;
    }

    /**
     * Runs the acquisition for a thread that waits for it, as {@link BlockingRunner#run} does: the steps go on
     * callbacks, as for {@link #start}, and the thread parks once, for the outcome. A virtual thread's stack is copied
     * to the heap at each park, into a new chunk when the frames thawed since the last one do not fit (and a blocking
     * acquire parks for the create, the watch and the wake-up, deep in its runner): parked once, a waiting virtual
     * thread costs one chunk. On a timeout, an interrupt or an error, our nodes are deleted before it returns, waiting
     * for the deletes at most until one request timeout after the deadline (at least one request timeout after an
     * interrupt); a delete not answered by then goes on in the background, as a blocking acquire's does.
     *
     * <p>The thread keeps the bound itself: parked until one request timeout after the deadline at most, it tells the
     * machine {@link Event.TimedOut} then if the outcome has not come, as the client's timer would. The timer is one
     * thread for every lock of the client: held up, it held the acquire up with it
     * ({@code AcquireBoundsTest.acquire_queueViewWhileTheClientsTimerIsHeldUp_endsWithinOneRequestTimeoutOfItsDeadline};
     * the partition rig saw four queue-view acquires come back 580 to 670 ms after that end was due, on a client whose
     * first acquires all came to their deadline at once).
     *
     * @return our nodes, one per queue, or empty if the deadline passed first
     */
    public Optional<List<LockNode>> await() throws InterruptedException {
        parked = Thread.currentThread();
        CompletableFuture<List<LockNode>> held = start();
        long bound = deadline().remainingNanosPlus(first().requestTimeoutNanos());
        long end = bound == Long.MAX_VALUE ? 0 : Parking.nanoTime() + bound;
        while (!held.isDone()) {
            // Here, not in CompletableFuture.get: five frames and a Signaller fewer to keep.
            if (bound == Long.MAX_VALUE) {
                Parking.park(this);
            } else if (end - Parking.nanoTime() > 0) {
                Parking.parkNanos(this, end - Parking.nanoTime());
            } else {
                bound = Long.MAX_VALUE; // told once: the machine's end completes the outcome
                feed(new Event.TimedOut());
            }
            if (Thread.interrupted()) {
                parked = null;
                CompletableFuture<Void> grantDeleted = requests.withdraw(held); // cancelled: the end cleans up
                if (grantDeleted != null) {
                    grantDeleted.thenRun(() -> left().complete(null));
                }
                awaitLeft(first().requestTimeoutNanos());
                Thread.interrupted(); // the JDK's meaning: the flag is clear when InterruptedException is thrown
                throw new InterruptedException("interrupted while acquiring lock '" + first().path() + "'");
            }
        }
        parked = null;
        try {
            return Optional.of(held.join());
        } catch (CompletionException e) {
            long requestTimeout = first().requestTimeoutNanos();
            Deadline deadline = deadline();
            awaitLeft(deadline.isForever() ? requestTimeout : Math.max(0, deadline.remainingNanos() + requestTimeout));
            return timedOutOrThrown(e.getCause(), "acquire of lock '" + first().path() + "'");
        }
    }

    private void awaitLeft(long nanos) {
        Uninterruptibles.await(left(), nanos);
    }

    private synchronized CompletableFuture<Void> left() {
        if (left == null) {
            left = new CompletableFuture<>();
        }
        return left;
    }

    @Override
    void failed(Throwable e) {
        end(e);
    }

    @Override
    void dispatch(Command command) {
        if (command instanceof Command.Granted granted) {
            requests.granted(granted);
            if (!complete(granted.nodes())) {
                // cancelled while the lock was being granted
                requests.deleteLater(granted.nodes()).thenRun(() -> left().complete(null));
            }
        } else if (command instanceof Command.GiveUp giveUp) {
            leave(giveUp);
        } else if (command instanceof Command.CleanUp cleanUp) {
            requests.cleanUp(cleanUp);
        } else if (command instanceof Command.Create create) {
            whenConnected(session -> create(session, create));
        } else if (command instanceof Command.ListQueue list) {
            whenConnected(session -> requests.list(session, list.queue()).thenAccept(this::feed));
        } else if (command instanceof Command.Watch watch) {
            whenConnected(session -> watch(session, watch));
        } else if (command instanceof Command.MakeParents) {
            makeParents();
        } else if (command instanceof Command.Recover) {
            whenConnected(session ->
                    requests.recoveryListing(session, createSession()).thenAccept(this::feed));
        } else if (command instanceof Command.CheckOwner check) {
            whenConnected(session ->
                    requests.checkOwner(session, check.queue(), check.name()).thenAccept(this::feed));
        } else if (command instanceof Command.Delete delete) {
            requests.deleteLater(delete.nodes()); // sent before the create that follows, on the same session
            feed(new Event.Deleted());
        } else {
            throw new AssertionError("unknown command " + command);
        }
    }

    private synchronized long createSession() {
        return createSession;
    }

    /**
     * Sends the create and, unless it is likely right behind a node of ours ({@link Acquisition#listsBehindCreate}), the
     * pipelined listing; the create's reply is told even after the end (for its cleanup).
     */
    private void create(SessionPort session, Command.Create create) {
        synchronized (this) {
            createSession = session.sessionId();
        }
        LockPath first = first();
        QueueRequests.Sent sent = requests.create(session, create);
        CompletableFuture<Event> created = sent.reply();
        boolean lists;
        synchronized (this) {
            lists = acquisition().listsBehindCreate(sent.ownAhead());
        }
        CompletableFuture<Event> listed = lists ? requests.listAll(session) : null;
        first.hooks().createSent(first.path(), create.prefix());
        created.thenAccept(reply -> {
            feed(reply);
            if (listed != null && reply instanceof Event.Created entered) {
                listed.thenAccept(listing -> {
                    if (listing instanceof Event.Listed children
                            && children.children().get(0) != null) {
                        first.hooks()
                                .entered(
                                        first.path(),
                                        entered.nodes().get(0).name(),
                                        children.children().get(0));
                    }
                    feed(listing);
                });
            }
        });
    }

    private void watch(SessionPort session, Command.Watch watch) {
        LockPath first = first();
        String path = watch.path();
        // First the watch on our own node, if the news ahead may grant: its reply comes before the watch's, on this
        // same event thread, so its status is known when the news ahead is (Acquisition, note 7).
        OwnNodeWatch own = watch.vouch() ? vouch(session, watch.queue()) : null;
        NodeWatcher nodeWatcher = new NodeWatcher(first, session, path, false);
        if (!keepWatch(nodeWatcher, Acquisition.Phase.WATCHING)) {
            nodeWatcher.close();
            return;
        }
        if (own != null) {
            own.wakes(nodeWatcher);
        }
        nodeWatcher.setOn(watch.ownAhead(), own).thenAccept(reply -> {
            if (reply.isOk() && isOver()) {
                // Ended while the watch was on its way: a removal sent then found no watch to remove on this client.
                nodeWatcher.remove();
                return;
            }
            if (reply.isOk()) {
                QueueHooks hooks = first.hooks();
                if (hooks != QueueHooks.NONE) { // a node's name is a substring made on each call
                    hooks.watchSet(first.path(), ourNode(watch.queue()), watch.name());
                }
                FirstUse.passed(parked); // a first acquire of the JVM waits for its turn: the next one may go
                feed(new Event.WatchSet());
                nodeWatcher.onWake(this);
                return;
            }
            clearWatch(nodeWatcher);
            if (reply.code() == Code.NONODE) {
                boolean fromFront = ClientContext.isReleasingFromFront(watch.name());
                feed(
                        own != null && own.status() == OwnNodeWatch.Status.GONE
                                ? new Event.OwnGone()
                                : new Event.WatchedGone(
                                        fromFront, own != null && own.status() == OwnNodeWatch.Status.STANDS));
            } else {
                feed(new Event.Failed(reply.code()));
            }
        });
    }

    /** The machine; guarded by this. */
    private Acquisition acquisition() {
        return (Acquisition) machine();
    }

    private synchronized String ourNode(int queue) {
        return acquisition().ourNode(queue);
    }

    private synchronized OwnNodeWatch vouch(SessionPort session, int queue) {
        return OwnNodeWatch.vouching(session, acquisition().ourLockNode(queue));
    }

    /** Our node whose own watch vouches for the wait of {@code watcher}, or null if none does. */
    private synchronized OwnNodeWatch vouchingFor(NodeWatcher watcher) {
        for (LockNode ours : acquisition().nodes()) {
            if (ours.vouchesFor(watcher)) {
                return ours;
            }
        }
        return null;
    }

    /**
     * The wake-up of {@code watcher}, with what our own node's watch says if it vouches for this wait: the node whose own
     * watch wakes the watcher ({@link OwnNodeWatch#wakes}), so the runner keeps no field for it.
     */
    @Override
    Event wokenEvent(NodeWatcher watcher, NodeWatcher.Wake why) {
        OwnNodeWatch own =
                why == NodeWatcher.Wake.CHANGED || why == NodeWatcher.Wake.SESSION_ENDED ? null : vouchingFor(watcher);
        if (own == null) {
            return super.wokenEvent(watcher, why);
        }
        OwnNodeWatch.Status ours = own.status();
        return ours == OwnNodeWatch.Status.GONE
                ? new Event.OwnGone()
                : new Event.Woken(why, ours == OwnNodeWatch.Status.STANDS);
    }

    /**
     * Ends the acquisition from outside (an error of a step, a cancel): cleans up what it made. An error completes the
     * outcome first, whose completion comes back here without one.
     */
    private void end(Throwable failure) {
        if (failure != null && completeExceptionally(failure)) {
            return;
        }
        if (abandonMachine(null) instanceof Command.GiveUp giveUp) {
            leave(giveUp);
        }
    }

    /** Leaves the queues without waiting: removes our watch, deletes our nodes, sweeps; then fails the outcome. */
    private void leave(Command.GiveUp giveUp) {
        stopWaiting();
        requests.cleanUp(new Command.CleanUp(giveUp.nodes(), giveUp.sweepPrefix()))
                .thenRun(() -> left().complete(null));
        completeExceptionally(
                giveUp.failure() != null
                        ? giveUp.failure()
                        : new LockTimeoutException(first().path(), timeout == null ? Duration.ZERO : timeout));
    }
}
