package dev.zklock.recipes.locks.engine;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.api.CuratorListener;
import org.apache.curator.framework.imps.CuratorFrameworkBase;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything zklock keeps for one Curator client, with the client's lifetime: the connection state of its holds and
 * its state listeners ({@link ConnectionTracker}), what waits on its sessions' ends ({@link SessionEnds}), its metrics listeners, its releases in flight, front nodes and queue tails (the
 * hand-off state), the protection ids of its nodes, and its one timer thread. Made on first use by any lock of the
 * client (a namespace view shares the context of the client it views); closed when the client closes, which stops the
 * timer thread at once and drops the context. Safe for use by multiple threads; no ZooKeeper call.
 *
 * <p>The static maps here are indexes, not state: a client's entry goes with the client (weak keys), or when it
 * closes; the index by protection id lets a waiter of any client in this process learn that the node it watched was
 * released from the front by another client here ({@link #isReleasingFromFront}).
 */
public final class ClientContext {
    private static final Logger logger = LoggerFactory.getLogger(ClientContext.class);

    /** Contexts by the client they serve (the client a namespace view views). Guarded by itself. */
    private static final Map<CuratorFramework, ClientContext> BY_CLIENT = new WeakHashMap<>();

    /** Contexts by the high bits of their protection ids. */
    private static final Map<Long, WeakReference<ClientContext>> BY_ID = new ConcurrentHashMap<>();

    private final WeakReference<CuratorFramework> client;
    private final ProtectionIds ids = new ProtectionIds();
    private final ContextTimer ownTimer; // the timer thread of a Curator client's context; none over a port
    private final TimerPort timer;
    private final MetricsDispatch metrics = new MetricsDispatch();
    private final SessionEnds sessionEnds;
    private final ClientPort port;
    private volatile ViewPort viewPort; // made on first use by a lock with a queue view
    private final ConnectionTracker tracker;
    private final ReleasesInFlight releases;
    private final FrontNodes frontNodes;
    private final QueueTails queueTails = new QueueTails();

    private ClientContext(CuratorFramework client) {
        this.client = new WeakReference<>(client);
        this.ownTimer = new ContextTimer("zklock-timer-" + Long.toHexString(ids.key() >>> 32));
        this.timer = ownTimer;
        this.sessionEnds = new SessionEnds();
        this.port = new CuratorClientPort(client, ownTimer);
        this.tracker = new ConnectionTracker(port, metrics, sessionEnds);
        this.releases = new ReleasesInFlight(timer);
        this.frontNodes = new FrontNodes(timer);
    }

    private ClientContext(ClientPort port) {
        this.client = new WeakReference<>(null);
        this.ownTimer = null;
        this.timer = port.timer();
        this.sessionEnds = new SessionEnds();
        this.port = port;
        this.tracker = new ConnectionTracker(port, metrics, sessionEnds);
        this.releases = new ReleasesInFlight(timer);
        this.frontNodes = new FrontNodes(timer);
        port.addConnectionStateListener(tracker);
    }

    /**
     * A context over {@code port}, a client that is not Curator's (the simulator's): tied to no Curator client, its
     * tracker told of the connection's changes through the port ({@link ClientPort#addConnectionStateListener}), its
     * session ends' registrations told in the order made. Dropped with {@link #close}.
     */
    public static ClientContext over(ClientPort port) {
        ClientContext made = new ClientContext(port);
        BY_ID.put(made.ids.key(), new WeakReference<>(made));
        return made;
    }

    /** Returns the context of {@code client}, made and tied to the client's close on first use. */
    public static ClientContext of(CuratorFramework client) {
        CuratorFramework owner = client instanceof CuratorFrameworkBase base ? base.client() : client;
        synchronized (BY_CLIENT) {
            ClientContext known = BY_CLIENT.get(owner);
            if (known != null) {
                return known;
            }
            ClientContext made = new ClientContext(owner);
            BY_CLIENT.put(owner, made);
            BY_ID.put(made.ids.key(), new WeakReference<>(made));
            made.attach(owner);
            return made;
        }
    }

    /**
     * Tells whether {@code nodeName}, a node a waiter watched, is being (or was just) released by a client of this
     * process after it held the lock with no node ranked before it ({@link FrontNodes}).
     */
    public static boolean isReleasingFromFront(String nodeName) {
        Long key = ProtectionIds.keyOf(nodeName);
        WeakReference<ClientContext> ref = key == null ? null : BY_ID.get(key);
        ClientContext context = ref == null ? null : ref.get();
        return context != null && context.frontNodes.contains(nodeName);
    }

    private void attach(CuratorFramework owner) {
        owner.getConnectionStateListenable().addListener(tracker);
        CuratorListener closing = (c, event) -> {
            if (event.getType() == CuratorEventType.CLOSING) {
                close();
            }
        };
        try {
            owner.getCuratorListenable().addListener(closing);
        } catch (UnsupportedOperationException notTheClientItself) {
            // A client that is not Curator's own and hides its listeners: the timer thread still ends when idle.
            logger.debug("client {} offers no close event; zklock's timer thread ends when idle", owner);
        }
        if (owner.getState() == CuratorFrameworkState.STOPPED) {
            close();
        }
    }

    /** Drops the context and stops its timer thread: the client is closing; every hold is lost, every session ended. */
    public void close() {
        tracker.close();
        if (ownTimer != null) {
            ownTimer.close();
        }
        synchronized (BY_CLIENT) {
            CuratorFramework owner = client.get();
            if (owner != null && BY_CLIENT.get(owner) == this) {
                BY_CLIENT.remove(owner);
            }
        }
        BY_ID.remove(ids.key());
        CuratorFramework owner = client.get();
        if (owner != null) {
            owner.getConnectionStateListenable().removeListener(tracker);
        }
    }

    public ProtectionIds ids() {
        return ids;
    }

    /** The client's clock and timer: its own timer thread, or the port's ({@link ClientPort#timer}). */
    public TimerPort timer() {
        return timer;
    }

    /** The client as the asynchronous runners reach it: connection, session, clock and timer, background requests. */
    public ClientPort port() {
        return port;
    }

    /**
     * The client's port through its queue views ({@link ViewPort}), shared by every lock of the client that uses them;
     * made on first use. A {@code root} (fixed for the namespace; null for none) becomes the root of every lock path
     * that is its child: one watch for all of them.
     */
    ClientPort viewPort(String root) {
        ViewPort made = viewPort;
        if (made == null) {
            synchronized (this) {
                made = viewPort;
                if (made == null) {
                    made = new ViewPort(port);
                    viewPort = made;
                }
            }
        }
        if (root != null) {
            made.addRoot(root);
        }
        return made;
    }

    public MetricsDispatch metrics() {
        return metrics;
    }

    public ConnectionTracker tracker() {
        return tracker;
    }

    /** What waits on one of the client's sessions, told when it ends. */
    public SessionEnds sessionEnds() {
        return sessionEnds;
    }

    public ReleasesInFlight releases() {
        return releases;
    }

    public FrontNodes frontNodes() {
        return frontNodes;
    }

    /** The newest lock node of the client on each lock path, which a create right behind it needs no listing for. */
    public QueueTails queueTails() {
        return queueTails;
    }
}
