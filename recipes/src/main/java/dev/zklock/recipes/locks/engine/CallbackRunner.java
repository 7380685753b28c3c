package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Runs one {@link Acquisition} with no thread waiting: each command is sent asynchronously and its reply or watch event
 * is told to the acquisition as the continuation, on ZooKeeper's event thread; the deadline comes from a timer. The
 * runner of {@code acquireAsync()}. Safe for use by multiple threads: the acquisition and the watch are guarded by this
 * object; continuations never block.
 */
public final class CallbackRunner {
    private final QueueRequests requests;
    private final LockPath first;
    private final Deadline deadline;
    private final Duration timeout;
    private final Acquisition acquisition; // guarded by this
    private final CompletableFuture<List<LockNode>> outcome = new CompletableFuture<>();

    private long createSession; // guarded by this
    private NodeWatcher watcher; // guarded by this
    private ZooKeeperHandle watchSession; // guarded by this
    private String watchedPath; // guarded by this
    private ConnectionStateListener resume; // guarded by this: waiting for a connection

    /** @param timeout how long the acquire may take, or null for as long as it takes */
    public CallbackRunner(List<LockPath> queues, Duration timeout) {
        this.requests = new QueueRequests(queues);
        this.first = requests.first();
        this.timeout = timeout;
        this.deadline = timeout == null ? Deadline.forever() : Deadline.after(Checks.toNanos(timeout));
        this.acquisition = new Acquisition(queues, null);
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
        if (!deadline.isForever()) {
            Future<?> timer = first.context().timer().schedule(this::deadlinePassed, deadline.remainingNanos());
            if (timer != null) {
                outcome.whenComplete((held, failure) -> timer.cancel(false));
            }
        }
        Command command;
        synchronized (this) {
            command = acquisition.start();
        }
        execute(command);
        return outcome;
    }

    private void deadlinePassed() {
        Command command;
        synchronized (this) {
            command = acquisition.on(resume != null ? new Event.TimedOut() : new Event.DeadlinePassed());
        }
        execute(command);
    }

    private void feed(Event event) {
        Command command;
        synchronized (this) {
            command = acquisition.on(event);
        }
        execute(command);
    }

    private void execute(Command command) {
        try {
            dispatch(command);
        } catch (RuntimeException | Error e) {
            end(e);
        }
    }

    private void dispatch(Command command) {
        if (command instanceof Command.Await) {
            return;
        }
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

    /** Sends the create and the pipelined listing; the create's reply is told even after the end (for its cleanup). */
    private void create(ZooKeeperHandle session, Command.Create create) {
        synchronized (this) {
            createSession = session.sessionId();
        }
        CompletableFuture<Event> created = requests.create(session, create);
        CompletableFuture<Event> listed = requests.listAll(session);
        first.hooks().createSent(first.path(), create.prefix());
        created.thenAccept(reply -> {
            feed(reply);
            if (reply instanceof Event.Created entered) {
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
        String path = requests.fixedPath(watch.queue(), watch.name());
        NodeWatcher nodeWatcher =
                new NodeWatcher(path, session.sessionId(), first.context().releases());
        synchronized (this) {
            if (acquisition.phase() != Acquisition.Phase.WATCHING) {
                return;
            }
            watcher = nodeWatcher;
            watchSession = session;
            watchedPath = path;
        }
        session.watchData(path, nodeWatcher).thenAccept(reply -> {
            if (reply.isOk() && isOver()) {
                // Ended while the watch was on its way: a removal sent then found no watch to remove on this client.
                session.removeWatch(path, nodeWatcher);
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

    private synchronized void clearWatch(NodeWatcher fired) {
        if (watcher == fired) {
            watcher = null;
            watchSession = null;
            watchedPath = null;
        }
    }

    private void makeParents() {
        CuratorFramework client = first.client();
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .inBackground((c, event) -> {
                        Code code = Code.get(event.getResultCode());
                        feed(
                                code == Code.OK || code == Code.NODEEXISTS
                                        ? new Event.ParentsMade()
                                        : new Event.Failed(code));
                    })
                    .forPath(first.path(), new byte[0]);
        } catch (Exception e) {
            throw first.failure("create the lock path", e, true);
        }
    }

    /** Runs {@code step} on a connected session now, or as soon as the client reconnects (unless ended by then). */
    private void whenConnected(Consumer<ZooKeeperHandle> step) {
        CuratorFramework client = first.client();
        Checks.requireStarted(client, first.path());
        ZooKeeperHandle session =
                client.getZookeeperClient().isConnected() ? ZooKeeperHandle.currentQuietly(client) : null;
        if (session != null) {
            step.accept(session);
            return;
        }
        ConnectionStateListener once = new ConnectionStateListener() {
            @Override
            public void stateChanged(CuratorFramework changed, ConnectionState state) {
                if (state.isConnected() && resumeOnce(this)) {
                    try {
                        whenConnected(step);
                    } catch (RuntimeException | Error e) {
                        end(e);
                    }
                }
            }
        };
        synchronized (this) {
            if (isOver()) {
                return;
            }
            resume = once;
        }
        client.getConnectionStateListenable().addListener(once);
        if (client.getZookeeperClient().isConnected() && resumeOnce(once)) {
            whenConnected(step);
        }
    }

    /** Takes the waiting for a connection over, once: true for the first caller, while the acquisition goes on. */
    private boolean resumeOnce(ConnectionStateListener once) {
        synchronized (this) {
            if (resume != once) {
                return false;
            }
            resume = null;
        }
        first.client().getConnectionStateListenable().removeListener(once);
        return !isOver();
    }

    private synchronized boolean isOver() {
        return acquisition.phase() == Acquisition.Phase.OVER || acquisition.phase() == Acquisition.Phase.HELD;
    }

    /**
     * Ends the acquisition from outside (an error of a step, a cancel): cleans up what it made. An error completes the
     * outcome first, whose completion comes back here without one.
     */
    private void end(Throwable failure) {
        if (failure != null && outcome.completeExceptionally(failure)) {
            return;
        }
        Command command;
        synchronized (this) {
            command = acquisition.abandon(null);
        }
        if (command instanceof Command.GiveUp giveUp) {
            leave(giveUp);
        }
    }

    /** Leaves the queues without waiting: removes our watch, deletes our nodes, sweeps; then fails the outcome. */
    private void leave(Command.GiveUp giveUp) {
        ConnectionStateListener waiting;
        synchronized (this) {
            if (watcher != null) {
                watchSession.removeWatch(watchedPath, watcher);
                watcher = null;
                watchSession = null;
                watchedPath = null;
            }
            waiting = resume;
            resume = null;
        }
        if (waiting != null) {
            first.client().getConnectionStateListenable().removeListener(waiting);
        }
        requests.cleanUp(new Command.CleanUp(giveUp.nodes(), giveUp.sweepPrefix()));
        outcome.completeExceptionally(
                giveUp.failure() != null
                        ? giveUp.failure()
                        : new LockTimeoutException(first.path(), timeout == null ? Duration.ZERO : timeout));
    }
}
