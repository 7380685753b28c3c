package dev.zklock.recipes.locks.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Runs one {@link LeaseAcquisition} with no thread waiting ({@link AsyncSteps}). The future completes with the step's
 * end, {@link Command.Granted}, {@link Command.GiveUp} or {@link Command.Restart}: a grant at once, the others once
 * whatever the end deletes has been answered. Safe for use by multiple threads: the acquisition, the watch and the wait for a connection are guarded by
 * this object; continuations never block.
 */
public final class LeaseRunner extends AsyncSteps<Command> {
    private final QueueRequests requests;
    private final LeaseAcquisition acquisition; // guarded by this

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
        this(leases, deadline, new LeaseAcquisition(leases, mutexSession, count, maxLeases, watchFirst));
    }

    private LeaseRunner(LockPath leases, Deadline deadline, LeaseAcquisition acquisition) {
        super(deadline, acquisition);
        this.requests = new QueueRequests(List.of(leases));
        this.acquisition = acquisition;
    }

    @Override
    LockPath first() {
        return requests.first();
    }

    /** Starts the step; the future completes with its end. */
    public CompletableFuture<Command> start() {
        if (!isDone()) { // else abandoned before it started
            begin();
        }
        return this;
    }

    /** The semaphore's lease count changed: a waiting step decides again. */
    public void countChanged() {
        feed(new Event.CountChanged());
    }

    /** Ends the step from outside (an interrupt, a cancel): cleans up what it made; the future completes. */
    public void abandon() {
        execute(abandonMachine(null));
    }

    /** Tells whether the step had to wait for a lease to be returned. */
    public synchronized boolean waited() {
        return acquisition.waited();
    }

    @Override
    void failed(Throwable e) {
        Command end = abandonMachine(e instanceof RuntimeException runtime ? runtime : null);
        if (end instanceof Command.GiveUp giveUp) {
            RuntimeException failure = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
            finish(new Command.GiveUp(giveUp.nodes(), giveUp.sweepPrefix(), failure));
        } else {
            completeExceptionally(e);
        }
    }

    @Override
    void dispatch(Command command) {
        if (command instanceof Command.CreateLeases create) {
            whenConnected(session -> create(session, create));
        } else if (command instanceof Command.ListLeases list) {
            whenConnected(session -> list(session, list.watch()).thenAccept(this::feed));
        } else if (command instanceof Command.MakeParents) {
            makeParents();
        } else if (command instanceof Command.Recover) {
            whenConnected(
                    session -> requests.recoveryListing(session, mutexSession()).thenAccept(this::feed));
        } else if (command instanceof Command.CheckOwner check) {
            whenConnected(
                    session -> requests.checkOwner(session, 0, check.name()).thenAccept(this::feed));
        } else if (command instanceof Command.Granted granted) {
            stopWaiting();
            if (!complete(granted)) {
                requests.deleteLater(granted.nodes());
            }
        } else if (command instanceof Command.GiveUp || command instanceof Command.Restart) {
            finish(command);
        } else if (command instanceof Command.CleanUp cleanUp) {
            requests.cleanUp(cleanUp);
        } else {
            throw new AssertionError("a lease acquisition cannot " + command);
        }
    }

    private synchronized long mutexSession() {
        return acquisition.mutexSession();
    }

    /**
     * Sends the create of our leases on the mutex's session and the listing right behind it; a session that is not the
     * mutex's any more reads as a lost create, whose recovery finds the session changed.
     */
    private void create(SessionPort session, Command.CreateLeases create) {
        if (session.sessionId() != mutexSession()) {
            feed(new Event.Failed(Code.SESSIONEXPIRED));
            return;
        }
        CompletableFuture<Event> created = requests.createSeveral(session, create.prefix(), create.count());
        CompletableFuture<Event> listed = list(session, create.watch());
        created.thenAccept(reply -> {
            feed(reply);
            if (reply instanceof Event.Created made) {
                listed.thenAccept(listing -> {
                    if (listing instanceof Event.Listed leases) {
                        LockPath path = first();
                        path.hooks()
                                .entered(
                                        path.path(),
                                        made.nodes().get(0).name(),
                                        leases.children().get(0));
                    }
                    feed(listing);
                });
            }
        });
    }

    /** Lists the leases, with a child watch of its own if {@code watch}, whose firing is told as a wake-up. */
    private CompletableFuture<Event> list(SessionPort session, boolean watch) {
        if (!watch) {
            return requests.list(session, 0);
        }
        LockPath leases = first();
        String path = leases.fixed(leases.path());
        NodeWatcher childWatcher = new NodeWatcher(leases, session, path, true);
        if (!keepWatch(childWatcher, null)) {
            childWatcher.close();
            return requests.list(session, 0); // ended meanwhile: the listing is not read
        }
        childWatcher.onWake(this);
        return session.watchChildren(path, childWatcher).thenApply(reply -> {
            if (reply instanceof Reply.Children listed) {
                if (isOver()) {
                    // Ended while the watch was on its way: a removal sent then found no watch to remove.
                    childWatcher.close();
                    leases.removeWatch(session, path, childWatcher, true);
                }
                return new Event.Listed(session.sessionId(), List.of(listed.children()));
            }
            clearWatch(childWatcher);
            if (reply.code() == Code.NONODE) {
                // Our leases went with the session that made them, and the server reaped the empty path: a listing
                // without them, as an unwatched listing reads it (a missing node leaves no child watch).
                return new Event.Listed(session.sessionId(), List.of(List.of()));
            }
            return new Event.Failed(reply.code());
        });
    }

    /**
     * Cleans up what an end without the leases leaves (watch, nodes, a lost create), then completes the future once the
     * deletes are answered (or handed to Curator's guaranteed delete, within one request timeout): a caller told that its
     * acquire gave up finds no lease of it left, from any client (BadInputTest).
     */
    private void finish(Command end) {
        stopWaiting();
        CompletableFuture<Void> deleted = null;
        if (end instanceof Command.GiveUp giveUp) {
            deleted = requests.cleanUp(new Command.CleanUp(giveUp.nodes(), giveUp.sweepPrefix()));
        } else if (end instanceof Command.Restart restart) {
            deleted = requests.cleanUp(new Command.CleanUp(restart.nodes(), restart.sweepPrefix()));
        }
        if (deleted == null || deleted.isDone()) {
            complete(end);
        } else {
            deleted.whenComplete((done, failure) -> complete(end));
        }
    }
}
