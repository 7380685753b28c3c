package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * Runs one {@link LeaseAcquisition} with no thread waiting: each command is sent asynchronously and its reply or watch
 * event told to the acquisition on ZooKeeper's event thread; the deadline comes from the client's timer. The future
 * completes with the step's end, {@link Command.Granted}, {@link Command.GiveUp} or {@link Command.Restart}, once
 * whatever the end deletes has been sent. Safe for use by multiple threads: the acquisition, the watch and the wait for
 * a connection are guarded by this object; continuations never block.
 */
public final class LeaseRunner {
    private final LockPath leases;
    private final QueueRequests requests;
    private final Deadline deadline;
    private final LeaseAcquisition acquisition; // guarded by this
    private final CompletableFuture<Command> outcome = new CompletableFuture<>();

    private NodeWatcher watcher; // guarded by this: the child watch on the leases, while it may be set
    private ZooKeeperHandle watchSession; // guarded by this
    private ConnectionStateListener resume; // guarded by this: waiting for a connection

    /**
     * @param mutexSession the session that holds the semaphore's internal mutex
     * @param watchFirst whether the first listing sets a child watch (the semaphore expects to wait)
     */
    public LeaseRunner(
            LockPath leases,
            long mutexSession,
            int count,
            IntSupplier maxLeases,
            boolean watchFirst,
            Deadline deadline) {
        this.leases = leases;
        this.requests = new QueueRequests(List.of(leases));
        this.deadline = deadline;
        this.acquisition = new LeaseAcquisition(leases, mutexSession, count, maxLeases, watchFirst);
    }

    /** Starts the step; the future completes with its end. */
    public CompletableFuture<Command> start() {
        if (outcome.isDone()) {
            return outcome; // abandoned before it started
        }
        if (!deadline.isForever()) {
            Future<?> timer = leases.context().timer().schedule(this::deadlinePassed, deadline.remainingNanos());
            if (timer != null) {
                outcome.whenComplete((end, failure) -> timer.cancel(false));
            }
        }
        Command command;
        synchronized (this) {
            command = acquisition.start();
        }
        execute(command);
        return outcome;
    }

    /** The semaphore's lease count changed: a waiting step decides again. */
    public void countChanged() {
        feed(new Event.CountChanged());
    }

    /** Ends the step from outside (an interrupt, a cancel): cleans up what it made; the future completes. */
    public void abandon() {
        Command command;
        synchronized (this) {
            command = acquisition.abandon(null);
        }
        execute(command);
    }

    /** Tells whether the step had to wait for a lease to be returned. */
    public synchronized boolean waited() {
        return acquisition.waited();
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
            failed(e);
        }
    }

    /** Ends the step on an error of one of its steps: cleans up, and fails with the error. */
    private void failed(Throwable e) {
        Command end;
        synchronized (this) {
            end = acquisition.abandon(e instanceof RuntimeException runtime ? runtime : null);
        }
        if (end instanceof Command.GiveUp giveUp) {
            finish(new Command.GiveUp(giveUp.nodes(), giveUp.sweepPrefix(), failureOf(e)));
        } else {
            outcome.completeExceptionally(e);
        }
    }

    private static RuntimeException failureOf(Throwable e) {
        return e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
    }

    private void dispatch(Command command) {
        if (command instanceof Command.Await) {
            return;
        }
        if (command instanceof Command.CreateLeases create) {
            whenConnected(session -> create(session, create));
        } else if (command instanceof Command.ListLeases list) {
            whenConnected(session -> list(session, list.watch()).thenAccept(this::feed));
        } else if (command instanceof Command.MakeParents) {
            makeParents();
        } else if (command instanceof Command.Recover) {
            whenConnected(session -> requests.recoveryListing(session, acquisition.mutexSession())
                    .thenAccept(this::feed));
        } else if (command instanceof Command.CheckOwner check) {
            whenConnected(
                    session -> requests.checkOwner(session, 0, check.name()).thenAccept(this::feed));
        } else if (command instanceof Command.Granted granted) {
            removeWatch();
            if (!outcome.complete(granted)) {
                requests.deleteLater(granted.nodes());
            }
        } else if (command instanceof Command.GiveUp giveUp) {
            finish(giveUp);
        } else if (command instanceof Command.Restart restart) {
            finish(restart);
        } else if (command instanceof Command.CleanUp cleanUp) {
            requests.cleanUp(cleanUp);
        } else {
            throw new AssertionError("a lease acquisition cannot " + command);
        }
    }

    /**
     * Sends the create of our leases on the mutex's session and the listing right behind it; a session that is not the
     * mutex's any more reads as a lost create, whose recovery finds the session changed.
     */
    private void create(ZooKeeperHandle session, Command.CreateLeases create) {
        long sessionId = session.sessionId();
        if (sessionId != acquisition.mutexSession()) {
            feed(new Event.Failed(Code.SESSIONEXPIRED));
            return;
        }
        CompletableFuture<Event> created = send(session, create);
        CompletableFuture<Event> listed = list(session, create.watch());
        created.thenAccept(reply -> {
            feed(reply);
            if (reply instanceof Event.Created) {
                listed.thenAccept(this::feed);
            }
        });
    }

    private CompletableFuture<Event> send(ZooKeeperHandle session, Command.CreateLeases create) {
        long sessionId = session.sessionId();
        CreateRequest request = leases.createRequest(create.prefix(), CreateMode.EPHEMERAL_SEQUENTIAL);
        if (create.count() == 1) {
            return leases.createOn(session, request)
                    .thenApply(reply -> reply instanceof Reply.Created made
                            ? new Event.Created(sessionId, List.of(nodeOf(made.path(), made.czxid(), sessionId)))
                            : new Event.Failed(reply.code()));
        }
        List<Op> creates = new ArrayList<>();
        for (int i = 0; i < create.count(); i++) {
            creates.add(Op.create(
                    request.getPath(),
                    request.getData(),
                    CreateOptions.newBuilder(request.getAcl(), CreateMode.EPHEMERAL_SEQUENTIAL)
                            .build()));
        }
        return session.multi(creates).thenApply(reply -> {
            if (!reply.isOk()) {
                return new Event.Failed(reply.code());
            }
            List<LockNode> made = new ArrayList<>();
            for (OpResult result : reply.results()) {
                OpResult.CreateResult createResult = (OpResult.CreateResult) result;
                made.add(nodeOf(createResult.getPath(), createResult.getStat().getCzxid(), sessionId));
            }
            return new Event.Created(sessionId, made);
        });
    }

    /** Lists the leases, with a child watch of its own if {@code watch}, whose firing is told as a wake-up. */
    private CompletableFuture<Event> list(ZooKeeperHandle session, boolean watch) {
        String path = leases.fixed(leases.path());
        if (!watch) {
            return requests.list(session, 0);
        }
        NodeWatcher childWatcher =
                new NodeWatcher(path, session.sessionId(), leases.context().releases());
        synchronized (this) {
            watcher = childWatcher;
            watchSession = session;
        }
        childWatcher.wakeUp().thenAccept(wake -> {
            clearWatch(childWatcher);
            feed(new Event.Woken(wake));
        });
        return session.watchChildren(path, childWatcher).thenApply(reply -> {
            if (reply instanceof Reply.Children listed) {
                return new Event.Listed(session.sessionId(), List.of(listed.children()));
            }
            clearWatch(childWatcher);
            return new Event.Failed(reply.code()); // a missing leases path cannot be: our node is in it
        });
    }

    private LockNode nodeOf(String fixedPath, long czxid, long sessionId) {
        return new LockNode(leases, ZKPaths.getNodeFromPath(fixedPath), czxid, sessionId);
    }

    private void makeParents() {
        try {
            leases.client()
                    .create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .inBackground((c, event) -> {
                        Code code = Code.get(event.getResultCode());
                        feed(
                                code == Code.OK || code == Code.NODEEXISTS
                                        ? new Event.ParentsMade()
                                        : new Event.Failed(code));
                    })
                    .forPath(leases.path(), new byte[0]);
        } catch (Exception e) {
            throw leases.failure("create the leases path", e, true);
        }
    }

    /** Cleans up what an end without the leases leaves (watch, nodes, a lost create), then completes the future. */
    private void finish(Command end) {
        removeWatch();
        ConnectionStateListener waiting;
        synchronized (this) {
            waiting = resume;
            resume = null;
        }
        if (waiting != null) {
            leases.client().getConnectionStateListenable().removeListener(waiting);
        }
        if (end instanceof Command.GiveUp giveUp) {
            requests.cleanUp(new Command.CleanUp(giveUp.nodes(), giveUp.sweepPrefix()));
        } else if (end instanceof Command.Restart restart) {
            requests.cleanUp(new Command.CleanUp(restart.nodes(), restart.sweepPrefix()));
        }
        outcome.complete(end);
    }

    /** Removes the child watch if one may be set: one request, not waited for. */
    private void removeWatch() {
        NodeWatcher set;
        ZooKeeperHandle session;
        synchronized (this) {
            set = watcher;
            session = watchSession;
            watcher = null;
            watchSession = null;
        }
        if (set != null) {
            session.removeChildWatch(leases.fixed(leases.path()), set);
        }
    }

    private synchronized void clearWatch(NodeWatcher fired) {
        if (watcher == fired) {
            watcher = null;
            watchSession = null;
        }
    }

    /** Runs {@code step} on a connected session now, or as soon as the client reconnects (unless ended by then). */
    private void whenConnected(Consumer<ZooKeeperHandle> step) {
        CuratorFramework client = leases.client();
        Checks.requireStarted(client, leases.path());
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
                        failed(e);
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

    private boolean resumeOnce(ConnectionStateListener once) {
        synchronized (this) {
            if (resume != once) {
                return false;
            }
            resume = null;
        }
        leases.client().getConnectionStateListenable().removeListener(once);
        return !isOver();
    }

    private synchronized boolean isOver() {
        return acquisition.phase() == LeaseAcquisition.Phase.OVER || acquisition.phase() == LeaseAcquisition.Phase.HELD;
    }
}
