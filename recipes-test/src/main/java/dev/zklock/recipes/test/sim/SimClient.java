package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LeaseQueue;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.NodeEvents;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * One simulated client: a Curator client with its ZooKeeper handle, as the engine sees it. Its session, its connection
 * (up, suspended, closed), the requests in flight on it (answered in the order sent, each applied at the server at some
 * moment and answered later; a connection that drops fails every reply not yet handed over with CONNECTIONLOSS, whether
 * or not the server applied the request, before it tells of the drop, so a request those failures send again waits
 * in the dead connection until the client next connects: as ZooKeeper's client does), the watch events meant for it (handed over in order with the replies; held
 * while the connection is down, dropped with the session), and the engine's context of the client, whose real {@code
 * ConnectionTracker} keeps the state of each hold (HELD, IN_DOUBT, LOST): the client tells it of its connection's
 * changes (CONNECTED, SUSPENDED, RECONNECTED, LOST) through its port ({@link SimPort#tell}) as Curator tells its
 * listeners, and the tracker's check after a reconnect is a request on the simulated session. Faults: a suspension, a
 * server-side expiry, a client-side kill (the client hears Expired at once; the server ends the session one session
 * timeout later), a close. Not thread-safe.
 */
final class SimClient {
    /** The connection as the client sees it. */
    enum Link {
        CONNECTED,
        SUSPENDED,
        CLOSED
    }

    private static final class Pending {
        final Consumer<SimServer.Result> reply;
        final List<Runnable> eventsBefore = new ArrayList<>(); // persistent watch events fired before it was applied
        SimServer.Result result;
        boolean applied;

        Pending(Consumer<SimServer.Result> reply) {
            this.reply = reply;
        }
    }

    final String name;
    private final SimWorld world;
    private final SimServer server;
    static final long NO_SESSION = 0; // after a kill on the client, until its new session
    private long session;
    private Link link = Link.CONNECTED;
    private int epoch;
    private long lastApply;
    private long lastReply;
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    private boolean dropping; // the connection drops: the failed requests' callbacks still find the client connected
    private final List<Runnable> stranded = new ArrayList<>(); // sent as it dropped: failed when it next connects
    private final List<Runnable> pendingNotices = new ArrayList<>();
    private final Map<String, Integer> eventsOnTheWay = new HashMap<>(); // fired for this session, not handed over
    private long heard; // the server's time of the newest reply or event handed over
    private final List<Runnable> connectWaiters = new ArrayList<>();
    private final Map<Object, Runnable> sessionWaiters = new LinkedHashMap<>(); // identity keys, insertion order
    private final List<BiConsumer<LockNode, LockState>> listeners = new ArrayList<>();
    final SimPersistentWatches persistentWatches = new SimPersistentWatches(this);

    private final SimPort port;
    private final ClientContext context; // the engine's context of this client, over its ports
    private final boolean queueViews; // its lock paths use the client's queue views
    private LeaseQueue semaphore; // made on first use

    SimClient(String name, SimWorld world) {
        this(name, world, false);
    }

    /**
     * A client whose lock paths read their queues from the client's queue views if {@code queueViews}, as a lock built
     * with {@code queueView()} does ({@link LockPath#useQueueView}).
     */
    SimClient(String name, SimWorld world, boolean queueViews) {
        this.name = name;
        this.world = world;
        this.server = world.server;
        this.session = server.openSession();
        this.port = new SimPort(world, this);
        this.context = ClientContext.over(port);
        this.queueViews = queueViews;
        port.tell(ConnectionState.CONNECTED);
    }

    /**
     * A lock path of this client: the engine's runners reach the client through its ports ({@link SimPort}). With
     * queue views, the two exclusive paths share their parent's root, as a registry's keys do; the read/write path is
     * a root of its own, as a lone lock's.
     */
    LockPath path(String path, String lockName, LockDriver driver) {
        LockPath made = new LockPath(Simulation.NAMES, context, path, lockName, driver);
        if (queueViews) {
            boolean shared = path.equals(Simulation.EXCLUSIVE_PATH) || path.equals(Simulation.SECOND_PATH);
            made.useQueueView(shared ? ZKPaths.getPathAndNode(path).getPath() : path);
        }
        return told(made);
    }

    /**
     * This client's semaphore object at {@code path} (one per client, as a process keeps one {@code ZkSemaphore}): the
     * engine's own {@link LeaseQueue}, its mutex and leases reached through the client's ports.
     */
    LeaseQueue semaphore(String path, IntSupplier maxLeases) {
        if (semaphore == null) {
            semaphore = new LeaseQueue(Simulation.NAMES, context, path, maxLeases);
            told(semaphore.mutex());
            told(semaphore.leases());
        }
        return semaphore;
    }

    /** The engine's deadline on this client's clock for {@code deadline} on the world's ({@link SimWorld#FOREVER}). */
    Deadline deadline(long deadline) {
        return deadline == SimWorld.FOREVER
                ? Deadline.forever()
                : Deadline.after(TimeUnit.MICROSECONDS.toNanos(deadline - world.now()), port.timer());
    }

    /** Has the client's listeners told of every move of a hold of {@code made}'s nodes. */
    private LockPath told(LockPath made) {
        made.setNodeEvents(new NodeEvents() {
            @Override
            public void stateChanged(LockNode node, LockState state) {
                for (BiConsumer<LockNode, LockState> listener : List.copyOf(listeners)) {
                    listener.accept(node, state);
                }
            }

            @Override
            public void revocationRequested(LockNode node) {
                // A cohort hears revocation requests through its own path: the engine's RevocationWatch tells it.
            }
        });
        return made;
    }

    /**
     * Drops the engine's context of this client once the run is over, as a Curator client's close drops its own: the
     * index of contexts by protection id would otherwise keep an entry for every simulated client of every seed.
     */
    void dispose() {
        context.close();
    }

    /** The engine's context of this client: its session ends, queue tails, front nodes. */
    ClientContext context() {
        return context;
    }

    long session() {
        return session;
    }

    Link link() {
        return link;
    }

    boolean isConnected() {
        return link == Link.CONNECTED;
    }

    boolean isClosed() {
        return link == Link.CLOSED;
    }

    /**
     * Sends a request on the current session: it reaches the server after a random delay, in the order sent, and its
     * result comes back after another, in the same order. A request sent while the connection is down fails at once.
     */
    void send(String what, Function<SimServer, SimServer.Result> operation, Consumer<SimServer.Result> reply) {
        if (dropping) {
            stranded.add(() -> reply.accept(lost()));
            world.note(name + " " + what + ": sent as the connection drops, waits for the next connection");
            return;
        }
        if (link != Link.CONNECTED) {
            world.after(1, name + " " + what + ": connection loss", () -> reply.accept(lost()));
            return;
        }
        int sentIn = epoch;
        Pending pending = new Pending(reply);
        inFlight.addLast(pending);
        long apply = Math.max(world.now() + world.delay(20, 300), lastApply + 1);
        lastApply = apply;
        long back = Math.max(apply + world.delay(20, 300), lastReply + 1);
        lastReply = back;
        world.at(apply, name + " " + what + " at the server", () -> {
            if (epoch == sentIn) {
                pending.result = operation.apply(server);
                pending.applied = true;
            }
        });
        world.at(back, name + " " + what + " answered", () -> {
            if (epoch == sentIn && inFlight.peekFirst() == pending) {
                inFlight.pollFirst();
                runAll(pending.eventsBefore);
                heard = Math.max(heard, apply);
                pending.reply.accept(pending.result);
            }
        });
    }

    /** A watch set by this client on its current session: its event is handed over in order with the replies. */
    SimServer.Watch watch(Object watcher, Consumer<EventType> onEvent) {
        long on = session;
        return new SimServer.Watch(on, watcher, (path, type) -> {
            if (on != session) {
                return;
            }
            eventsOnTheWay.merge(path, 1, Integer::sum);
            long firedAt = world.now();
            notice(on, name + " watch event " + type, () -> {
                heard = Math.max(heard, firedAt);
                eventsOnTheWay.computeIfPresent(path, (p, n) -> n == 1 ? null : n - 1);
                onEvent.accept(type);
            });
        });
    }

    /**
     * Hands over a persistent watch's event on {@code path} fired now, in the server's order ({@link
     * SimPersistentWatches}). Until it is handed over the client {@link #hearsOf} the path, as of a one-shot watch's
     * event; one lost with a drop stays counted until the session ends, as the resync after the reconnect brings its
     * news (what a view keeps hears of a node gone meanwhile then).
     */
    void handOverOrLose(long on, String path, String what, Runnable deliver) {
        if (on != session || link != Link.CONNECTED || dropping) {
            world.note(name + " loses " + what);
            return;
        }
        long firedAt = world.now();
        eventsOnTheWay.merge(path, 1, Integer::sum);
        Runnable handed = () -> {
            heard = Math.max(heard, firedAt);
            eventsOnTheWay.computeIfPresent(path, (p, n) -> n == 1 ? null : n - 1);
            deliver.run();
        };
        for (Pending pending : inFlight) {
            if (!pending.applied) {
                pending.eventsBefore.add(handed);
                return;
            }
        }
        int sentIn = epoch;
        long at = Math.max(world.now() + world.delay(20, 300), lastReply + 1);
        lastReply = at;
        world.at(at, name + " " + what, () -> {
            if (epoch == sentIn && on == session) {
                handed.run();
            }
        });
    }

    /**
     * The server's time of the newest reply or watch event handed over to this client: what it has heard of covers the
     * server's state up to then (one session's replies and events come in the server's order), and nothing after.
     */
    long heard() {
        return heard;
    }

    /** Tells whether a watch event on {@code path} was fired for this session and has not been handed over yet. */
    boolean hearsOf(String path) {
        return eventsOnTheWay.containsKey(path);
    }

    private void notice(long on, String what, Runnable deliver) {
        if (on != session) {
            return; // the session that set the watch ended: its events go with it
        }
        Runnable guarded = () -> {
            if (on == session) {
                deliver.run();
            }
        };
        if (link != Link.CONNECTED) {
            pendingNotices.add(guarded);
            return;
        }
        int sentIn = epoch;
        long at = Math.max(world.now() + world.delay(20, 300), lastReply + 1);
        lastReply = at;
        world.at(at, what, () -> {
            if (epoch == sentIn) {
                guarded.run();
            } else {
                pendingNotices.add(guarded);
            }
        });
    }

    /** Runs {@code step} now if connected, else once connected again (or closed: the step then finds it so). */
    void whenConnected(Runnable step) {
        if (link == Link.SUSPENDED) {
            connectWaiters.add(step);
        } else {
            step.run();
        }
    }

    /** Runs {@code action} when the current session ends (a watch's waiter: SessionEnds); cancel with its key. */
    void onSessionEnd(Object key, Runnable action) {
        sessionWaiters.put(key, action);
    }

    void cancelSessionEnd(Object key) {
        sessionWaiters.remove(key);
    }

    /** Has {@code listener} told of every move of a hold of this client's nodes by its tracker. */
    void addListener(BiConsumer<LockNode, LockState> listener) {
        listeners.add(listener);
    }

    // ---- the engine's tracker of this client ----

    /** Starts tracking a granted node in the engine's tracker, which gives it its first state. */
    void track(LockNode node) {
        context.tracker().track(node);
    }

    void untrack(LockNode node) {
        context.tracker().untrack(node);
    }

    /** The state of the hold of {@code node} as a holder reads it from the engine's tracker. */
    LockState stateOf(LockNode node) {
        return node.observedState();
    }

    /** The node is known gone: its hold is LOST, on the seed's next event (the engine's tracker's {@code lose}). */
    void lose(LockNode node) {
        context.tracker().lose(node, "its cohort found it gone");
    }

    // ---- faults ----

    /** The connection goes silent and drops; it comes back after {@code downMicros} if the session still lives. */
    void suspend(long downMicros) {
        if (link != Link.CONNECTED) {
            return;
        }
        drop();
        world.after(downMicros, name + " reconnects", this::reconnect);
    }

    /** The server ends the session; the client learns of it when it reconnects. */
    void expireOnServer() {
        server.endSession(session);
        if (link == Link.CONNECTED) {
            drop();
            world.after(world.delay(100, 2_000), name + " reconnects", this::reconnect);
        }
    }

    /** The client hears Expired at once (ZooKeeper's testable kill); the server ends the session a timeout later. */
    void killOnClient() {
        if (link == Link.CLOSED || session == NO_SESSION) {
            return; // closed, or killed already and its new session on its way
        }
        long old = session;
        if (link == Link.CONNECTED) {
            drop();
        }
        session = NO_SESSION; // the handle is dead: a reconnect due from an earlier drop cannot resume it
        sessionEnded();
        world.after(
                world.sessionTimeoutMicros,
                name + " session 0x" + Long.toHexString(old) + " times out",
                () -> server.endSession(old));
        world.after(world.delay(100, 2_000), name + " opens a new session", this::openNewSession);
    }

    /** The client closes: its session ends at the server, every hold is LOST, every wait ends. */
    void close() {
        if (link == Link.CLOSED) {
            return;
        }
        link = Link.CLOSED;
        failInFlight();
        failStranded();
        server.endSession(session);
        context.tracker().close(); // as the engine's context hears Curator's CLOSING: every hold LOST, sessions ended
        runAll(new ArrayList<>(sessionWaiters.values()));
        sessionWaiters.clear();
        List<Runnable> waiting = List.copyOf(connectWaiters);
        connectWaiters.clear();
        runAll(waiting);
    }

    /**
     * The connection drops. As ZooKeeper's client, it fails the requests in flight before it tells of the disconnection,
     * so their callbacks still find it connected, and a request they send again goes into the dead connection: it
     * waits in the client's queue until the client next connects, or gives up (then it fails with the connection).
     */
    private void drop() {
        dropping = true;
        failInFlight();
        dropping = false;
        link = Link.SUSPENDED;
        persistentWatches.tell(KeeperState.Disconnected);
        port.tell(ConnectionState.SUSPENDED);
    }

    /** The requests sent as the connection dropped fail with it, now that the client connects again or closes. */
    private void failStranded() {
        List<Runnable> failed = List.copyOf(stranded);
        stranded.clear();
        for (Runnable fail : failed) {
            world.after(1, name + " a request sent as the connection dropped: connection loss", fail);
        }
    }

    private void failInFlight() {
        epoch++;
        List<Pending> failed = List.copyOf(inFlight);
        inFlight.clear();
        for (Pending pending : failed) {
            pending.reply.accept(lost());
        }
    }

    private void reconnect() {
        if (link != Link.SUSPENDED || session == NO_SESSION) {
            return; // a killed handle: its new session is on its way
        }
        failStranded();
        if (!server.isLive(session)) {
            sessionEnded();
            openNewSession();
            return;
        }
        link = Link.CONNECTED;
        persistentWatches.tell(KeeperState.SyncConnected);
        List<Runnable> notices = List.copyOf(pendingNotices);
        pendingNotices.clear();
        for (Runnable notice : notices) {
            notice(session, name + " held-back watch event", notice);
        }
        resumeWaiters();
    }

    /** Every hold of the ended session is LOST, and every watch's waiter hears of the end. */
    private void sessionEnded() {
        pendingNotices.clear();
        persistentWatches.clear();
        eventsOnTheWay.clear();
        port.tell(ConnectionState.LOST); // the tracker: every hold LOST, every session ended
        List<Runnable> waiters = new ArrayList<>(sessionWaiters.values());
        sessionWaiters.clear();
        runAll(waiters);
    }

    private void openNewSession() {
        failStranded();
        if (link == Link.CLOSED) {
            return;
        }
        session = server.openSession();
        eventsOnTheWay.clear(); // the events of the session before go with it
        persistentWatches.clear();
        link = Link.CONNECTED;
        resumeWaiters(); // Curator's RECONNECTED after LOST: the tracker loses what was tracked on the ended session
    }

    private void resumeWaiters() {
        List<Runnable> waiting = List.copyOf(connectWaiters);
        connectWaiters.clear();
        runAll(waiting);
        port.tell(ConnectionState.RECONNECTED); // the tracker: every other session ended; its check of the session
    }

    private static void runAll(List<Runnable> actions) {
        for (Runnable action : actions) {
            action.run();
        }
    }

    private static SimServer.Result lost() {
        return SimServer.Result.of(Code.CONNECTIONLOSS);
    }

    static String fullPath(LockNode node) {
        return node.lockPath() + "/" + node.name();
    }
}
