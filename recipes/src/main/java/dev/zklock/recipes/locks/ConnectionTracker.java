package dev.zklock.recipes.locks;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one client's connection for every lock held through it: one Curator connection-state listener per
 * {@code CuratorFramework} object, however many locks. SUSPENDED puts every held lock IN_DOUBT; LOST makes every held
 * lock LOST; RECONNECTED checks each lock in doubt with one {@code exists} on its node (HELD again if the node is there
 * and owned by the current session, LOST otherwise). Safe for use by multiple threads.
 */
final class ConnectionTracker implements ConnectionStateListener {
    private static final Logger logger = LoggerFactory.getLogger(ConnectionTracker.class);

    /** Trackers by client; a tracker holds its client weakly, so an abandoned client can go. Guarded by itself. */
    private static final Map<CuratorFramework, ConnectionTracker> TRACKERS = new WeakHashMap<>();

    private final WeakReference<CuratorFramework> client;
    private final String namespace;
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final List<LockStateListener> clientListeners = new CopyOnWriteArrayList<>();
    private final MetricsDispatch metrics = new MetricsDispatch();

    private ConnectionTracker(CuratorFramework client) {
        this.client = new WeakReference<>(client);
        this.namespace = client.getNamespace();
    }

    /** Returns the tracker of {@code client}, registering its one connection-state listener on first use. */
    static ConnectionTracker of(CuratorFramework client) {
        synchronized (TRACKERS) {
            return TRACKERS.computeIfAbsent(client, c -> {
                ConnectionTracker tracker = new ConnectionTracker(c);
                c.getConnectionStateListenable().addListener(tracker);
                return tracker;
            });
        }
    }

    /** Starts tracking a node that was just granted; IN_DOUBT at once if the connection is already suspended. */
    Hold track(LockNode node, String lockPath, List<LockStateListener> lockListeners) {
        CuratorFramework current = client.get();
        boolean connected = current != null && current.getZookeeperClient().isConnected();
        Hold hold = new Hold(node, lockPath, lockListeners, connected ? LockState.HELD : LockState.IN_DOUBT);
        holds.add(hold);
        return hold;
    }

    void untrack(Hold hold) {
        holds.remove(hold);
    }

    MetricsDispatch metrics() {
        return metrics;
    }

    void addListener(LockStateListener listener) {
        clientListeners.add(listener);
    }

    void removeListener(LockStateListener listener) {
        clientListeners.remove(listener);
    }

    @Override
    public void stateChanged(CuratorFramework changed, ConnectionState newState) {
        switch (newState) {
            case SUSPENDED -> holds.forEach(hold -> move(hold, LockState.IN_DOUBT));
            case LOST -> holds.forEach(hold -> move(hold, LockState.LOST));
            case RECONNECTED -> verify(changed);
            default -> {
                // CONNECTED (the first connection) and READ_ONLY change nothing for a hold.
            }
        }
    }

    /** After a reconnect: each hold in doubt is ours again only if its node is there and owned by this session. */
    private void verify(CuratorFramework changed) {
        ZkSession session;
        try {
            session = ZkSession.current(changed);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (IllegalStateException closed) {
            return;
        }
        if (session == null) {
            return; // disconnected again: the next RECONNECTED checks
        }
        for (Hold hold : holds) {
            if (hold.state() != LockState.IN_DOUBT) {
                continue;
            }
            if (hold.node().sessionId() != session.sessionId()) {
                move(hold, LockState.LOST);
                continue;
            }
            session.exists(ZKPaths.fixForNamespace(namespace, hold.node().path()))
                    .thenAccept(reply -> {
                        if (reply.isOk()
                                && reply.stat().getEphemeralOwner()
                                        == hold.node().sessionId()) {
                            move(hold, LockState.HELD);
                        } else if (reply.isOk() || reply.code() == Code.NONODE) {
                            move(hold, LockState.LOST);
                        } else {
                            logger.debug(
                                    "{}: could not check {} after a reconnect: {}",
                                    hold.lockPath(),
                                    hold.node(),
                                    reply.code());
                        }
                    });
        }
    }

    private void move(Hold hold, LockState next) {
        LockStateEvent event = hold.moveTo(next);
        if (event != null) {
            hold.announce(event, clientListeners);
            if (next == LockState.LOST) {
                metrics.lost(hold.lockPath());
            }
        }
    }
}
