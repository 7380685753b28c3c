package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Runs one {@link Acquisition} with no thread waiting ({@link AsyncSteps}): the runner of {@code acquireAsync()}, and of
 * a semaphore's internal mutex. Safe for use by multiple threads: the acquisition and the watch are guarded by this
 * object; continuations never block.
 */
public final class CallbackRunner extends AsyncSteps {
    private final QueueRequests requests;
    private final Duration timeout;
    private final Acquisition acquisition; // guarded by this
    private final CompletableFuture<List<LockNode>> outcome = new CompletableFuture<>();

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
        this(new QueueRequests(queues), deadline, timeout, new Acquisition(queues, null));
    }

    private CallbackRunner(QueueRequests requests, Deadline deadline, Duration timeout, Acquisition acquisition) {
        super(requests.first(), deadline, acquisition);
        this.requests = requests;
        this.timeout = timeout;
        this.acquisition = acquisition;
    }

    /**
     * Starts the acquisition; the future completes with our nodes once held, or fails with
     * {@link LockTimeoutException} or the error. Cancelling it ends the acquisition and deletes our nodes.
     */
    public CompletableFuture<List<LockNode>> start() {
        outcome.whenComplete((held, failure) -> {
            if (failure != null) {
                end(null); // cancelled, or ended by the acquisition itself (then there is nothing left to do)
            }
        });
        begin(outcome);
        return outcome;
    }

    @Override
    void failed(Throwable e) {
        end(e);
    }

    @Override
    void dispatch(Command command) {
        if (command instanceof Command.Granted granted) {
            requests.granted(granted);
            if (!outcome.complete(granted.nodes())) {
                requests.deleteLater(granted.nodes()); // cancelled while the lock was being granted
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
    private void create(ZooKeeperHandle session, Command.Create create) {
        synchronized (this) {
            createSession = session.sessionId();
        }
        LockPath first = first();
        QueueRequests.Sent sent = requests.create(session, create);
        CompletableFuture<Event> created = sent.reply();
        boolean lists;
        synchronized (this) {
            lists = acquisition.listsBehindCreate(sent.ownAhead());
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

    private void watch(ZooKeeperHandle session, Command.Watch watch) {
        LockPath first = first();
        String path = requests.fixedPath(watch.queue(), watch.name());
        NodeWatcher nodeWatcher = new NodeWatcher(path, session.sessionId(), first);
        if (!keepWatch(new SetWatch(first, session, path, nodeWatcher, false), Acquisition.Phase.WATCHING)) {
            nodeWatcher.close();
            return;
        }
        session.watchData(path, nodeWatcher).thenAccept(reply -> {
            if (reply.isOk() && isOver()) {
                // Ended while the watch was on its way: a removal sent then found no watch to remove on this client.
                nodeWatcher.close();
                first.removeWatch(session, path, nodeWatcher, false);
                return;
            }
            if (reply.isOk()) {
                first.hooks().watchSet(first.path(), ourNode(watch.queue()), watch.name());
                feed(new Event.WatchSet());
                nodeWatcher.wakeUp().thenAccept(wake -> {
                    clearWatch(nodeWatcher);
                    feed(new Event.Woken(wake));
                });
                return;
            }
            clearWatch(nodeWatcher);
            if (reply.code() == Code.NONODE) {
                boolean fromFront = ClientContext.isReleasingFromFront(watch.name());
                first.context()
                        .releases()
                        .after(path, session.sessionId())
                        .thenRun(() -> feed(new Event.WatchedGone(fromFront)));
            } else {
                feed(new Event.Failed(reply.code()));
            }
        });
    }

    private synchronized String ourNode(int queue) {
        return acquisition.ourNode(queue);
    }

    /**
     * Ends the acquisition from outside (an error of a step, a cancel): cleans up what it made. An error completes the
     * outcome first, whose completion comes back here without one.
     */
    private void end(Throwable failure) {
        if (failure != null && outcome.completeExceptionally(failure)) {
            return;
        }
        if (abandonMachine(null) instanceof Command.GiveUp giveUp) {
            leave(giveUp);
        }
    }

    /** Leaves the queues without waiting: removes our watch, deletes our nodes, sweeps; then fails the outcome. */
    private void leave(Command.GiveUp giveUp) {
        stopWaiting();
        requests.cleanUp(new Command.CleanUp(giveUp.nodes(), giveUp.sweepPrefix()));
        outcome.completeExceptionally(
                giveUp.failure() != null
                        ? giveUp.failure()
                        : new LockTimeoutException(first().path(), timeout == null ? Duration.ZERO : timeout));
    }
}
