package dev.zklock.recipes.locks.engine;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link Acquisition} on the calling thread, which waits for each reply and wake-up itself: the runner of
 * {@code acquire()}. Where the caller waits anyway, requests are synchronous (ZooKeeper's client wakes a thread waiting
 * for a synchronous reply itself, one thread hop sooner than a callback), each within the acquire's bound ({@link
 * SyncBound}: such a call has none of its own), and an uncontended acquire of one queue is
 * one round trip: the create is sent, the listing right behind it, and our node is taken from the listing without
 * waiting for the create's reply to be handed over. Right behind a node of the same client, the create goes alone and
 * its reply says what to watch (see {@link Acquisition}'s note 6). It reaches the client only through the engine's
 * ports ({@link ClientPort}, {@link SessionPort}, the client's {@link TimerPort}) and waits only through {@link
 * Parking} and its {@link Deadline}: ZooKeeper's synchronous calls are the production session's ({@link
 * ZooKeeperHandle}), and a client that is not Curator's (the simulator's) runs this same code. Confined to the
 * acquiring thread, apart from the cleanup a late create reply gets.
 */
public final class BlockingRunner {
    private static final Logger logger = LoggerFactory.getLogger(BlockingRunner.class);

    private final QueueRequests requests;
    private final LockPath first;
    private final Deadline deadline;
    private final Acquisition acquisition;
    private final long startNanos = Parking.nanoTime();

    private boolean deadlineTold;
    private long createSession;
    private CompletableFuture<Event> pendingCreate; // a create whose reply was not handed to the acquisition
    private NodeWatcher setWatch; // the watch set, until it fires
    private OwnNodeWatch voucher; // the watch on our own node in the queue waited on, once a wait needs one

    public BlockingRunner(List<LockPath> queues, Deadline deadline, Acquisition.Beside beside) {
        this.requests = new QueueRequests(queues);
        this.first = requests.first();
        this.deadline = deadline;
        this.acquisition = new Acquisition(queues, beside);
    }

    /** Runs the acquisition: our nodes, one per queue, or empty if the deadline passed first (nothing left behind). */
    public Optional<List<LockNode>> run() throws InterruptedException {
        Command end;
        try {
            end = drive(acquisition.start());
        } catch (InterruptedException e) {
            leave(acquisition.abandon(null));
            Thread.interrupted(); // the JDK's meaning: the flag is clear when InterruptedException is thrown
            throw e;
        } catch (RuntimeException | Error e) {
            try {
                leave(acquisition.abandon(e instanceof RuntimeException runtime ? runtime : null));
            } catch (RuntimeException cleanupFailure) {
                e.addSuppressed(cleanupFailure);
            }
            throw e;
        }
        if (end instanceof Command.Granted granted) {
            requests.granted(granted);
            logger.debug("{}: {} holds the lock after {} µs", first.path(), granted.nodes(), elapsedMicros());
            return Optional.of(granted.nodes());
        }
        Command.GiveUp giveUp = (Command.GiveUp) end;
        leave(giveUp);
        if (giveUp.failure() != null) {
            throw giveUp.failure();
        }
        logger.debug("{}: gave up after {} µs ({})", first.path(), elapsedMicros(), deadline);
        return Optional.empty();
    }

    private Command drive(Command command) throws InterruptedException {
        while (!(command instanceof Command.Granted) && !(command instanceof Command.GiveUp)) {
            command = execute(command);
        }
        return command;
    }

    private Command execute(Command command) throws InterruptedException {
        if (command instanceof Command.Create create) {
            return create(create);
        }
        if (command instanceof Command.ListQueue list) {
            SessionPort session = first.connected(deadline);
            return session == null
                    ? feed(new Event.TimedOut())
                    : feed(orLost(bounded(() -> requests.listNow(session, list.queue()))));
        }
        if (command instanceof Command.Watch watch) {
            return watch(watch);
        }
        if (command instanceof Command.MakeParents) {
            Boolean made = bounded(() -> {
                requests.makeParents();
                return Boolean.TRUE;
            });
            return feed(made == null ? new Event.Failed(Code.CONNECTIONLOSS) : new Event.ParentsMade());
        }
        if (command instanceof Command.Recover) {
            SessionPort session = first.connected(deadline);
            return session == null
                    ? feed(new Event.TimedOut())
                    : feed(await(requests.recoveryListing(session, createSession)));
        }
        if (command instanceof Command.CheckOwner check) {
            SessionPort session = first.connected(deadline);
            return session == null
                    ? feed(new Event.TimedOut())
                    : feed(await(requests.checkOwner(session, check.queue(), check.name())));
        }
        if (command instanceof Command.Delete delete) {
            deleteNow(delete.nodes());
            return feed(new Event.Deleted());
        }
        throw new AssertionError("a blocking acquisition cannot " + command);
    }

    /** Creates our nodes with the listing pipelined behind the create; see the class notes for the one round trip. */
    private Command create(Command.Create create) throws InterruptedException {
        SessionPort session = first.connected(deadline);
        if (session == null) {
            return feed(new Event.TimedOut());
        }
        createSession = session.sessionId();
        QueueRequests.Sent sent = requests.create(session, create);
        pendingCreate = sent.reply();
        if (!acquisition.listsBehindCreate(sent.ownAhead())) {
            // Likely right behind a node of ours: the create's reply tells what to watch (Acquisition, note 6).
            first.hooks().createSent(first.path(), create.prefix());
            return feed(takeCreateReply(awaitAloneCreate(pendingCreate)));
        }
        if (requests.queues().size() > 1) {
            CompletableFuture<Event> listed = requests.listAll(session);
            first.hooks().createSent(first.path(), create.prefix());
            Command next = feed(takeCreateReply(await(pendingCreate)));
            return next instanceof Command.Await ? feed(await(listed)) : next;
        }
        first.hooks().createSent(first.path(), create.prefix());
        Event listed = orLost(bounded(() -> requests.listNow(session, 0)));
        String ours = listed instanceof Event.Listed listing ? childWithPrefix(listing, create.prefix()) : null;
        Event created;
        if (ours != null) {
            // The create made our node: its reply came before the listing's. Go on without waiting for the hop that
            // hands the create's reply over; the fencing token is read from it when asked for.
            CompletableFuture<Long> token = pendingCreate.thenApply(
                    reply -> ((Event.Created) reply).nodes().get(0).czxid());
            created = new Event.Created(
                    session.sessionId(), List.of(LockNode.createdBy(first, ours, session.sessionId(), token)));
            pendingCreate = null;
        } else {
            created = takeCreateReply(await(pendingCreate));
        }
        if (created instanceof Event.Created entered) {
            List<String> children =
                    listed instanceof Event.Listed listing ? listing.children().get(0) : List.of();
            first.hooks().entered(first.path(), entered.nodes().get(0).name(), children);
        }
        Command next = feed(created);
        return next instanceof Command.Await ? feed(listed) : next;
    }

    /** Hands the create's reply to the acquisition: from here on it, not the runner, answers for what it made. */
    private Event takeCreateReply(Event reply) {
        pendingCreate = null;
        return reply;
    }

    private static String childWithPrefix(Event.Listed listing, String prefix) {
        for (String child : listing.children().get(0)) {
            if (child.startsWith(prefix)) {
                return child;
            }
        }
        return null;
    }

    /** Sets the watch, then waits for it to fire or for the deadline. */
    private Command watch(Command.Watch watch) throws InterruptedException {
        SessionPort session = first.connected(deadline);
        if (session == null) {
            return feed(new Event.TimedOut());
        }
        // First the watch on our own node, if the news ahead may grant: its reply comes before the watch's (note 7).
        OwnNodeWatch own = null;
        if (watch.vouch()) {
            voucher = OwnNodeWatch.vouching(session, acquisition.ourLockNode(watch.queue()));
            own = voucher;
        }
        String path = watch.path();
        NodeWatcher nodeWatcher = new NodeWatcher(first, session, path, false);
        setWatch = nodeWatcher;
        if (own != null) {
            own.wakes(nodeWatcher);
        }
        OwnNodeWatch vouching = own;
        Reply reply = bounded(() -> nodeWatcher.setOnNow(watch.ownAhead(), vouching));
        if (reply == null) {
            reply = new Reply.Failed(Code.CONNECTIONLOSS); // no reply within the acquire's bound
        }
        if (reply.code() == Code.NONODE) {
            clearWatch();
            boolean fromFront = ClientContext.isReleasingFromFront(watch.name());
            OwnNodeWatch.Status ours = own == null ? OwnNodeWatch.Status.SPENT : own.settled(deadline);
            return feed(
                    ours == OwnNodeWatch.Status.GONE
                            ? new Event.OwnGone()
                            : new Event.WatchedGone(fromFront, ours == OwnNodeWatch.Status.STANDS));
        }
        if (!reply.isOk()) {
            clearWatch();
            return feed(new Event.Failed(reply.code()));
        }
        logger.debug("{}: {} watches {}", first.path(), watch.queue(), path);
        QueueHooks hooks = first.hooks();
        if (hooks != QueueHooks.NONE) { // a node's name is a substring made on each call
            hooks.watchSet(first.path(), ourNodeName(watch.queue()), watch.name());
        }
        Command next = feed(new Event.WatchSet());
        if (!(next instanceof Command.Await)) {
            return next;
        }
        NodeWatcher.Wake wake = nodeWatcher.await(deadline);
        if (wake == null) {
            return feed(new Event.TimedOut());
        }
        if (wake == NodeWatcher.Wake.OWN_GONE) {
            setWatch.remove(); // the watch ahead has not fired: it goes from the server too
            setWatch = null;
            return feed(new Event.OwnGone());
        }
        clearWatch();
        if (own == null || wake == NodeWatcher.Wake.CHANGED || wake == NodeWatcher.Wake.SESSION_ENDED) {
            return feed(new Event.Woken(wake));
        }
        OwnNodeWatch.Status ours = own.settled(deadline);
        return feed(
                ours == OwnNodeWatch.Status.GONE
                        ? new Event.OwnGone()
                        : new Event.Woken(wake, ours == OwnNodeWatch.Status.STANDS));
    }

    private String ourNodeName(int queue) {
        return acquisition.ourNode(queue);
    }

    /** Tells the acquisition {@code event}, after telling it that the deadline passed if it did and it does not know. */
    private Command feed(Event event) {
        if (!deadlineTold && deadline.hasPassed()) {
            deadlineTold = true;
            Command answer = acquisition.on(new Event.DeadlinePassed());
            if (!(answer instanceof Command.Await)) {
                return answer;
            }
        }
        return acquisition.on(event);
    }

    /**
     * Waits for the reply of a create sent alone as the listing behind a create is waited for: under a deadline that
     * never passes, until ZooKeeper's client answers or fails it. Many threads of one client queue their requests on
     * one session, and under load a reply may come later than one request timeout after its send without being lost:
     * taken for lost, every such create would recover (a sync and a listing each), queued behind the same backlog (the
     * bench's 100,000 virtual threads on one client did). Under a deadline, as {@link #await}.
     */
    private Event awaitAloneCreate(CompletableFuture<Event> reply) throws InterruptedException {
        if (deadline.remainingNanos() != Long.MAX_VALUE) {
            return await(reply);
        }
        Event event = deadline.await(reply, 0);
        return event != null ? event : new Event.Failed(Code.CONNECTIONLOSS);
    }

    /**
     * Runs a synchronous request on this thread within the acquire's bound, one request timeout after the deadline
     * ({@link SyncBound}); null if the bound ended it. No bound for an acquire without a deadline.
     */
    private <T> T bounded(SyncBound.Call<T> call) throws InterruptedException {
        long bound = deadline.isForever()
                ? Long.MAX_VALUE
                : Math.max(0, deadline.remainingNanos()) + first.requestTimeoutNanos();
        return SyncBound.call(first.context().timer(), bound, call);
    }

    private static Event orLost(Event reply) {
        return reply != null ? reply : new Event.Failed(Code.CONNECTIONLOSS);
    }

    /** Waits for a reply until the deadline, but at least one request timeout; a reply that never came is lost. */
    private Event await(CompletableFuture<Event> reply) throws InterruptedException {
        Event event = first.awaitReply(reply, deadline);
        return event != null ? event : new Event.Failed(Code.CONNECTIONLOSS);
    }

    /** Deletes our nodes, waiting for the replies until one request timeout after the deadline at the latest. */
    private void deleteNow(List<LockNode> nodes) {
        Failures failures = new Failures();
        long until = deadline.plusNanos(first.requestTimeoutNanos());
        for (LockNode node : nodes) {
            try {
                NodeDeletes.deleteNow(first, node.path(), until);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        failures.throwIfAny();
    }

    /** Leaves the queues: removes our watch, deletes our nodes, sweeps for a lost create, and answers a late one. */
    private void leave(Command command) {
        if (setWatch != null) {
            setWatch.remove();
            setWatch = null;
        }
        if (pendingCreate != null) {
            CompletableFuture<Event> late = pendingCreate;
            pendingCreate = null;
            late.thenAccept(reply -> {
                Command cleanUp;
                synchronized (acquisition) { // the reply's thread, after the acquiring thread has left
                    cleanUp = acquisition.on(reply);
                }
                if (cleanUp instanceof Command.CleanUp lateCleanUp) {
                    requests.cleanUp(lateCleanUp);
                }
            });
        }
        if (command instanceof Command.GiveUp giveUp) {
            deleteNow(giveUp.nodes());
            if (giveUp.sweepPrefix() != null) {
                requests.sweep(giveUp.sweepPrefix());
            }
        }
    }

    private void clearWatch() {
        if (setWatch != null) {
            setWatch.close();
        }
        setWatch = null;
    }

    private long elapsedMicros() {
        return (Parking.nanoTime() - startNanos) / 1000;
    }
}
