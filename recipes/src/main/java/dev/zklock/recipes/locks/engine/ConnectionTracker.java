package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.LockStateListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one client's connection for every lock held through it: one Curator connection-state listener per client,
 * however many locks, owned by the client's {@link ClientContext}. SUSPENDED puts every held lock IN_DOUBT; LOST makes every held
 * lock LOST; RECONNECTED reads the node of each lock in doubt (one request each, sent together) and makes it HELD
 * again if its node stands (with a watch on its node that vouches for it, as at its grant:
 * {@link OwnNodeWatch#vouchHeld}), LOST otherwise; the client's close makes every held lock
 * LOST. The answers to those reads come later, off Curator's thread: it makes a hold HELD only if the hold is still
 * IN_DOUBT and no SUSPENDED or LOST came since the RECONNECTED that asked (a generation counter that each of them
 * bumps), so a newer suspension is never undone by an older check. LOST is final. Each transition logs one summary
 * line; listeners are called on the thread of Curator's connection-state notifications, or, for the outcome of a
 * reconnect, on the client port's executor (the common fork-join pool), never on ZooKeeper's event thread. It reads
 * the client through its {@link ClientPort} (connected, current session, timer, negotiated timeout), so the simulator
 * runs it on its simulated clients, told of their connection through the port.
 * Every change (of the connection, or of a hold's state) completes {@link #nextChange()}, which {@link Admission} waits
 * on, and every session end it learns of is told to the client's {@link SessionEnds}. Safe for use by multiple threads.
 */
public final class ConnectionTracker implements ConnectionStateListener, PauseWatch.PausedListener {
    private static final Logger logger = LoggerFactory.getLogger(ConnectionTracker.class);

    private final ClientPort port;
    private LockNode held; // guarded by this: the first of the held nodes, linked through the nodes themselves
    private final List<LockStateListener> clientListeners = new CopyOnWriteArrayList<>();
    private final MetricsDispatch metrics;
    private final SessionEnds sessionEnds;
    private CompletableFuture<Void> change = new CompletableFuture<>(); // guarded by this: completed on the next change
    private boolean closed; // guarded by this
    private long generation; // guarded by this: bumped by every SUSPENDED, LOST and the close; see settle
    private volatile Executor settling; // where a reconnect's check ends, the port's executor: see settleOn
    private final PauseWatch pauses;

    /**
     * A tracker for the client of {@code port}, whose {@link ClientContext} registers it as a connection-state
     * listener; the port's timer ticks while holds are tracked, to notice a pause of the process ({@link PauseWatch}).
     */
    public ConnectionTracker(ClientPort port, MetricsDispatch metrics, SessionEnds sessionEnds) {
        this.port = port;
        this.metrics = metrics;
        this.sessionEnds = sessionEnds;
        this.settling = port.executor();
        this.pauses = new PauseWatch(port.timer(), port::sessionTimeoutMs, this::hasHolds, this);
    }

    private synchronized boolean hasHolds() {
        return held != null;
    }

    /**
     * Tells whether this process likely did not run for half a session or more just now, so that a hold it says HELD
     * may have outlived its session ({@link PauseWatch}): a HELD hold then reads IN_DOUBT ({@link
     * LockNode#observedState()}).
     */
    boolean suspectsPause() {
        return pauses.suspects(port.timer().read());
    }

    /**
     * The process did not run for {@code gapNanos} (told by the client's timer, {@link PauseWatch}): every held lock is
     * IN_DOUBT, and, if the client is connected, the session's nodes are checked as after a reconnect (a read per hold),
     * which makes each HELD again if its node stands on a live session; a connection the pause broke fails that check,
     * and the client's SUSPENDED and RECONNECTED or LOST follow.
     */
    @Override
    public void paused(long gapNanos) {
        nextGeneration();
        moveAll(
                holds(),
                LockState.IN_DOUBT,
                "PAUSED",
                "the process did not run for " + gapNanos / 1_000_000 + " ms, half its session or more");
        SessionPort session = port.current();
        if (session != null && port.isConnected()) {
            check(session);
        }
        signal();
    }

    /**
     * Starts tracking a node that was just granted: HELD, or IN_DOUBT if the connection is down now, or LOST if the
     * client has closed or is connected on another session than the node's. The state is read under the same monitor
     * as the holds each notification moves, so that no notification can miss the node: one that read the holds before
     * it was linked ran before the connection state read here. No ZooKeeper request.
     */
    public void track(LockNode node) {
        synchronized (this) {
            if (node.previous != null || held == node) {
                return; // tracked already
            }
            node.previous = null;
            node.next = held;
            if (held != null) {
                held.previous = node;
            }
            held = node;
            boolean connected = port.isConnected();
            // A node its own watch saw deleted before it was linked starts LOST (OwnNodeWatch): the watch's lose() that
            // came first found no tracked node; one that comes after finds it linked.
            node.granted(
                    node.isDeletedOutside()
                            ? LockState.LOST
                            : stateOnGrant(closed, connected, connected && onSession(node.sessionId())));
        }
        pauses.holding();
    }

    /**
     * The state a node starts in when tracked: LOST on a closed client, IN_DOUBT while the connection is down, LOST when
     * connected on another session than the node's, HELD otherwise. Pure.
     */
    public static LockState stateOnGrant(boolean closed, boolean connected, boolean onNodesSession) {
        if (closed) {
            return LockState.LOST;
        }
        if (!connected) {
            return LockState.IN_DOUBT;
        }
        return onNodesSession ? LockState.HELD : LockState.LOST;
    }

    /**
     * Tells whether {@code sessionId}, a node's, is the session the connected client is on now. Not so when the thread
     * that got the grant was held up between the reply and tracking while the session ended and the client connected
     * on a new one: the LOST that would have moved the node came before it was linked, and the node went with its
     * session (the simulator found this: SimulationTest). Reading the session of a connected client does not block; a
     * client with no handle to read says nothing against the node.
     */
    private boolean onSession(long sessionId) {
        SessionPort handle = port.current();
        return handle == null || handle.sessionId() == sessionId;
    }

    /**
     * Returns a future that completes at the next change of the connection or of a hold's state: take it, then look at
     * the state, then wait on it, and no change is missed.
     */
    public synchronized CompletableFuture<Void> nextChange() {
        return change;
    }

    /**
     * Makes the hold of {@code node} LOST (its node was found gone), if it is still tracked, telling its listeners on the
     * port's executor (the common fork-join pool): the news may come on ZooKeeper's event thread, where no listener runs.
     */
    public void lose(LockNode node, String why) {
        if (!isTracked(node)) {
            return; // released, or not granted yet (a node then tracked starts LOST if it was deleted: track)
        }
        port.executor().execute(() -> {
            if (isTracked(node)) { // a hold released before its node went has nothing to lose
                moveAll(List.of(node), LockState.LOST, "NODE_GONE", why);
                signal();
            }
        });
    }

    private synchronized boolean isTracked(LockNode node) {
        return node.previous != null || held == node;
    }

    /**
     * Makes the tracked hold of the node at {@code nodePath}, a node of lock path {@code lockPath}, LOST now, on the
     * calling thread (its listeners run there, with cause {@code EXPIRED}): a hold ended from outside, by a time to
     * live. Once this returns, a cohort passes that node no more (the news is in its inbox, drained before any later
     * pass) and {@link Admission} refuses a grant of it.
     *
     * @return the node, or null if no hold of it is tracked or it is LOST already
     */
    public LockNode expire(String lockPath, String nodePath, String why) {
        LockNode found = null;
        synchronized (this) {
            for (LockNode node = held; node != null && found == null; node = node.next) {
                if (node.path().equals(nodePath)
                        && node.lockPath().equals(lockPath)
                        && node.trackedState() != LockState.LOST) {
                    found = node;
                }
            }
        }
        if (found == null) {
            return null;
        }
        moveAll(List.of(found), LockState.LOST, "EXPIRED", why);
        signal();
        return found;
    }

    /** The client is closing: every held lock is LOST, and every session has ended. */
    public void close() {
        synchronized (this) {
            closed = true;
            generation++;
        }
        moveAll(holds(), LockState.LOST, "CLIENT_CLOSED", "the client is closed");
        sessionEnds.closed();
        signal();
    }

    /** Stops tracking a held node; does nothing if it is not tracked. */
    public synchronized void untrack(LockNode node) {
        if (node.previous == null && held != node) {
            return;
        }
        if (node.previous != null) {
            node.previous.next = node.next;
        } else {
            held = node.next;
        }
        if (node.next != null) {
            node.next.previous = node.previous;
        }
        node.previous = null;
        node.next = null;
    }

    /** Returns the held nodes now. */
    private synchronized List<LockNode> holds() {
        List<LockNode> all = new ArrayList<>();
        for (LockNode node = held; node != null; node = node.next) {
            all.add(node);
        }
        return all;
    }

    public void addListener(LockStateListener listener) {
        clientListeners.add(listener);
    }

    public void removeListener(LockStateListener listener) {
        clientListeners.remove(listener);
    }

    @Override
    public void stateChanged(CuratorFramework changed, ConnectionState newState) {
        switch (newState) {
            case SUSPENDED -> {
                nextGeneration();
                moveAll(holds(), LockState.IN_DOUBT, "SUSPENDED", "the connection is suspended");
            }
            case LOST -> {
                nextGeneration();
                moveAll(holds(), LockState.LOST, "LOST", "the session is lost");
                sessionEnds.ended(0);
            }
            case RECONNECTED -> verify();
            case CONNECTED -> liveSession();
            default -> {
                // READ_ONLY changes nothing for a hold.
            }
        }
        signal();
    }

    /**
     * Starts a new generation of the connection: a settle begun in an older one moves no hold to HELD. Bumped before the
     * holds move, so a settle either moved a hold before (and this move follows it) or sees the new generation.
     */
    private synchronized void nextGeneration() {
        generation++;
    }

    /**
     * Has the check of a reconnect end on {@code executor} (the port's executor by default): a test holds it there
     * to force a suspension between the listing of the session's nodes and the settle.
     */
    void settleOn(Executor executor) {
        settling = executor;
    }

    /** Tells the session ends: every session but the one the client is connected on now has ended. */
    private void liveSession() {
        SessionPort session = port.current();
        if (session != null && port.isConnected()) {
            sessionEnds.ended(session.sessionId());
        }
    }

    private void signal() {
        CompletableFuture<Void> done;
        synchronized (this) {
            done = change;
            change = new CompletableFuture<>();
        }
        done.complete(null);
    }

    /**
     * After a reconnect: a hold in doubt is ours again only if its node is among the ephemeral nodes of the current
     * session (one read per hold in doubt, sent together); a hold of an ended session is lost.
     */
    private void verify() {
        SessionPort session = port.current(); // null when closed, or disconnected again: the next RECONNECTED checks
        if (session == null) {
            return;
        }
        sessionEnds.ended(session.sessionId());
        check(session);
    }

    /** Checks the holds in doubt on the ephemeral nodes of {@code session}: LOST if of another session, else settled. */
    private void check(SessionPort session) {
        long seen;
        synchronized (this) {
            seen = generation;
        }
        List<LockNode> inDoubt = new ArrayList<>();
        List<LockNode> ended = new ArrayList<>();
        for (LockNode hold : holds()) {
            if (hold.trackedState() == LockState.IN_DOUBT) {
                (hold.sessionId() == session.sessionId() ? inDoubt : ended).add(hold);
            }
        }
        moveAll(ended, LockState.LOST, "RECONNECTED", "their session ended");
        if (inDoubt.isEmpty()) {
            return;
        }
        // One read per node in doubt, sent together, rather than one listing of the session's ephemeral nodes: that
        // listing's single reply grows with every node of the session, and past the client's packet limit
        // (jute.maxbuffer, 1 MB by default: about 7,000 nodes of 149-byte paths) the client drops the connection on
        // it; the next RECONNECTED asked again, so a client with that many nodes never stayed connected
        // (LockLossTest).
        List<CompletableFuture<Reply>> reads = new ArrayList<>(inDoubt.size());
        for (LockNode hold : inDoubt) {
            reads.add(session.exists(hold.fixedPath()));
        }
        CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenRunAsync(() -> settle(inDoubt, session.sessionId(), seen, reads), settling);
    }

    /**
     * Settles the holds in doubt on the reads of their nodes, off ZooKeeper's event thread. A node a read finds missing
     * is gone for good (a session's node never comes back), so its hold is LOST whenever this runs. A node
     * that stands makes its hold HELD only if nothing moved it since the check began: it is still IN_DOUBT, the
     * connection is in the generation whose RECONNECTED began the check (no SUSPENDED or LOST since), and the client is
     * connected on the node's session; all three are seen under this tracker's monitor, where a new generation begins,
     * so a suspension that comes while the reads' replies wait for this leaves the hold IN_DOUBT, and its listeners'
     * last word is IN_DOUBT (ConnectionTrackerSettleTest). The next RECONNECTED checks again.
     */
    private void settle(List<LockNode> inDoubt, long sessionId, long seen, List<CompletableFuture<Reply>> reads) {
        List<LockNode> stand = new ArrayList<>();
        List<LockNode> lost = new ArrayList<>();
        for (int i = 0; i < inDoubt.size(); i++) {
            Reply read = reads.get(i).join();
            if (read.isOk()) {
                stand.add(inDoubt.get(i));
            } else if (read.code() == Code.NONODE) {
                lost.add(inDoubt.get(i));
            } else {
                logger.warn(
                        "session 0x{}: could not read the session's nodes after a reconnect ({}); {} holds stay in"
                                + " doubt until the next reconnect",
                        Long.toHexString(sessionId),
                        read.code(),
                        inDoubt.size());
                return;
            }
        }
        List<LockNode> heldAgain = new ArrayList<>();
        synchronized (this) {
            if (generation == seen && port.isConnected() && onSession(sessionId)) {
                for (LockNode hold : stand) {
                    if (hold.compareAndMove(LockState.IN_DOUBT, LockState.HELD)) {
                        heldAgain.add(hold);
                    }
                }
            }
        }
        for (LockNode hold : heldAgain) {
            OwnNodeWatch.vouchHeld(hold); // a hold granted while disconnected, or whose watch's read failed, had none
            announce(hold, hold.eventOf(LockState.IN_DOUBT, LockState.HELD), "RECONNECTED");
        }
        logMoved(heldAgain.size(), sessionId, LockState.HELD, "their nodes stand after a reconnect");
        moveAll(lost, LockState.LOST, "RECONNECTED", "their nodes are gone after a reconnect");
        signal();
    }

    /**
     * Moves {@code some} holds to {@code next}, telling their listeners, with one log line for them all.
     *
     * @param cause the connection event (Curator's name for it), NODE_GONE, EXPIRED or CLIENT_CLOSED, for the JFR event
     */
    private void moveAll(Iterable<LockNode> some, LockState next, String cause, String why) {
        int moved = 0;
        long session = 0;
        for (LockNode hold : some) {
            if (move(hold, next, cause)) {
                moved++;
                session = hold.sessionId();
            }
        }
        logMoved(moved, session, next, why);
    }

    private static void logMoved(int moved, long session, LockState next, String why) {
        if (moved == 0) {
            return;
        }
        String hex = Long.toHexString(session);
        if (next == LockState.HELD) {
            logger.info("session 0x{}: {} held locks are {}: {}", hex, moved, next, why);
        } else {
            logger.warn("session 0x{}: {} held locks are {}: {}", hex, moved, next, why);
        }
    }

    private boolean move(LockNode hold, LockState next, String cause) {
        LockStateEvent event = hold.moveTo(next);
        if (event == null) {
            return false;
        }
        announce(hold, event, cause);
        return true;
    }

    private void announce(LockNode hold, LockStateEvent event, String cause) {
        LockState next = event.state();
        JfrEvents.stateChanged(event, cause);
        hold.announce(event, clientListeners);
        if (next == LockState.LOST) {
            metrics.lost(hold.lockPath());
        }
    }
}
