package dev.zklock.recipes.test;

import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real faults for tests: nothing here is simulated on the client alone.
 *
 * <p>Thread-safe: every method works on the handles it is given.
 */
public final class Faults {
    private static final Logger logger = LoggerFactory.getLogger(Faults.class);

    /**
     * How long a client may take to connect again once a silence ends, kept clear of its session timeout: ZooKeeper's
     * client waits up to 1 s before each attempt, and 1 s more when it comes back to the server it used last.
     */
    private static final long RECONNECT_ALLOWANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2_500);

    private Faults() {}

    /**
     * Ends the client's current session on the server at once: opens a second handle on the same session id and
     * password and closes it, which makes the server close the session and delete its ephemeral nodes. The client
     * learns of it at its next exchange with the server (its connection is dropped too) and Curator opens a new
     * session, reporting LOST and then RECONNECTED.
     *
     * @param client a started, connected client
     * @param connectString the server or ensemble the client uses
     * @param sessionTimeoutMs the session timeout to ask for on the second handle
     * @throws IllegalStateException if the client has no session or the second handle cannot connect
     */
    public static void expireSession(CuratorFramework client, String connectString, int sessionTimeoutMs) {
        expireSession(client, connectString, sessionTimeoutMs, sessionId -> {});
    }

    /**
     * Ends the client's current session on the server, as {@link #expireSession(CuratorFramework, String, int)} does,
     * and tells {@code beforeEnd} which session it ends just before the server may start deleting its nodes: a
     * {@link SafetyMonitor} must know that the session's holds are gone before anyone else can take their locks.
     *
     * @param client a started, connected client
     * @param connectString the server or ensemble the client uses
     * @param sessionTimeoutMs the session timeout to ask for on the second handle
     * @param beforeEnd told the id of the session about to end, once the second handle is connected
     * @return the id of the session that ended
     * @throws IllegalStateException if the client has no session, the session had already ended, or the second handle
     *     cannot connect
     */
    public static long expireSession(
            CuratorFramework client, String connectString, int sessionTimeoutMs, LongConsumer beforeEnd) {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            long sessionId = zk.getSessionId();
            byte[] password = zk.getSessionPasswd();
            CountDownLatch answered = new CountDownLatch(1);
            AtomicBoolean expired = new AtomicBoolean();
            ZooKeeper twin = new ZooKeeper(
                    connectString,
                    sessionTimeoutMs,
                    event -> {
                        if (event.getState() == Watcher.Event.KeeperState.Expired) {
                            expired.set(true);
                            answered.countDown();
                        } else if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                            answered.countDown();
                        }
                    },
                    sessionId,
                    password);
            try {
                if (!answered.await(sessionTimeoutMs, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("second handle on session 0x" + Long.toHexString(sessionId)
                            + " did not connect to " + connectString);
                }
                if (expired.get()) {
                    throw new IllegalStateException("session 0x" + Long.toHexString(sessionId)
                            + " had already ended; the client has not noticed yet");
                }
                beforeEnd.accept(sessionId);
            } finally {
                twin.close(); // closeSession: the server deletes the session's ephemeral nodes before it answers
            }
            return sessionId;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring a session", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot expire the session of " + client, e);
        }
    }

    /**
     * Kills the client's current session on the client's side, through ZooKeeper's testable hook (what curator-test's
     * {@code KillSession} calls): the client sees Expired at once, before it marks its connection closed, and Curator
     * reports LOST and opens a new session. Nothing is said to the server, which expires the old session, and deletes
     * its ephemeral nodes, when its timeout runs out; unless Curator's reconnect closes the old session first, which
     * happens about one time in twenty. A watch set on the old handle after its Expired event never fires.
     *
     * @param client a started client with a session
     * @return the id of the session killed
     * @throws IllegalStateException if the client has no ZooKeeper handle now
     */
    public static long killSession(CuratorFramework client) {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            long sessionId = zk.getSessionId();
            zk.getTestable().injectSessionExpiration();
            return sessionId;
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle whose session to kill in " + client, e);
        }
    }

    /**
     * Closes the client's TCP connection to its server, through ZooKeeper's own test hook on the client's socket. The
     * session lives on: the client reports a lost connection (Curator: SUSPENDED), connects again (possibly to another
     * server of the ensemble) and resumes the session (RECONNECTED). Requests in flight fail with a connection loss;
     * their effect on the server, if they reached it, stays.
     *
     * @param client a started client
     * @return {@code true} if the client had a connection to close
     * @throws IllegalStateException if the client has no ZooKeeper handle now
     */
    public static boolean dropConnection(CuratorFramework client) {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            boolean connected = zk.getState().isConnected();
            zk.getTestable().closeSocket();
            return connected;
        } catch (IOException e) {
            throw new IllegalStateException("cannot close the connection of " + client, e);
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle to disconnect in " + client, e);
        }
    }

    /**
     * Makes the client's connection go silent for a while shorter than its session timeout, so that Curator reports
     * SUSPENDED and then RECONNECTED on the same session: the client's proxies hold back every byte both ways (requests
     * sent meanwhile wait, replies to the ones sent before wait too) until a time between 1/2 and 7/10 of the session
     * timeout after the server last heard from the client, chosen by {@code length}, and at most the session timeout
     * less 2.5 s (the time the client may take to connect again) after it. The client notices the silence by
     * itself once it has heard nothing for 2/3 of its session timeout; if it has not by the time {@code cut} chooses
     * within the silence, the proxies reset its connection then (as a router that gives up on it would), so the
     * client is SUSPENDED, and its attempts to connect again wait in the proxies, from that point on. At the end the
     * proxies reset every connection of the client, losing what they held back, and let bytes flow: the client
     * connects again and resumes its session, which the server kept, since it heard from the client less than a
     * session timeout before.
     * Waits for the client's RECONNECTED, up to a session timeout.
     *
     * @param client a started, connected client that reaches the servers through {@code proxies} only (built with
     *     {@code ensembleTracker(false)}, or Curator moves it to the servers the ensemble's configuration names)
     * @param proxies the client's proxies
     * @param length from 0 to 1: where the silence ends, from 1/2 (0) to 7/10 (1) of the session timeout after the
     *     server last heard from the client
     * @param cut from 0 to 1: when, within the silence, the proxies reset the client's connection if it has not given up
     *     on it by itself (0: at once, 1: at the end)
     * @return the id of the session that lived through the silence
     * @throws IllegalArgumentException if {@code length} or {@code cut} is outside 0 to 1
     * @throws IllegalStateException if the client is not connected through {@code proxies} when the silence starts,
     *     or does not report SUSPENDED (ZooKeeper 3.9's client drops its Disconnected event when a watch removal with
     *     {@code local} set fails with the connection just before it, and Curator then hears of neither the disconnect
     *     nor the reconnect), or does not come back on the same session within a session timeout after the silence
     */
    public static long silenceConnection(CuratorFramework client, ClientProxies proxies, double length, double cut) {
        requireFraction(length, "length");
        requireFraction(cut, "cut");
        ZooKeeper zk = handleOf(client);
        long sessionId = zk.getSessionId();
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(zk.getSessionTimeout());
        ConnectionWatch watch = new ConnectionWatch();
        client.getConnectionStateListenable().addListener(watch);
        try {
            if (!zk.getState().isConnected() || sessionId == 0) {
                throw new IllegalStateException("the client has no connection to silence (ZooKeeper state "
                        + zk.getState() + ", session 0x" + Long.toHexString(sessionId) + ")");
            }
            if (!proxies.carries(client)) {
                throw new IllegalStateException("the client is connected around its proxies, to "
                        + Sessions.remoteAddress(client).map(Object::toString).orElse("no server")
                        + " (build it with ensembleTracker(false))");
            }
            long silent = System.nanoTime();
            proxies.hold();
            long last = proxies.lastRequestNanos();
            long end = last
                    + Math.min((long) (timeoutNanos * (0.5 + 0.2 * length)), timeoutNanos - RECONNECT_ALLOWANCE_NANOS);
            boolean noticed;
            try {
                long cutAt = silent + (long) (Math.max(0, end - silent) * cut);
                noticed = watch.suspended.await(cutAt - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (!noticed) {
                    proxies.dropConnections(); // the client had not noticed: it does now, and its reconnects wait
                }
                parkUntil(end);
            } finally {
                proxies.dropConnections(); // what was held back is lost, as on a connection reset
                proxies.resume();
            }
            String silence = TimeUnit.NANOSECONDS.toMillis(end - silent) + " ms of silence";
            if (watch.suspended.getCount() > 0) { // then RECONNECTED does not come either: wait for ZooKeeper's own
                // On the client's handle of the moment: Curator may have closed the silenced one for a new session.
                Poll.until(Duration.ofNanos(timeoutNanos), () -> connectedOrClosed(client));
                throw new IllegalStateException("the client on session 0x" + Long.toHexString(sessionId)
                        + " did not report SUSPENDED after " + silence + ", though its connection was reset (ZooKeeper"
                        + " state now " + zk.getState() + ")");
            }
            boolean back = watch.reconnected.await(timeoutNanos, TimeUnit.NANOSECONDS);
            logger.debug(
                    "silenced session 0x{}: {} ms after the server last heard from it, SUSPENDED {} ms in ({}),"
                            + " RECONNECTED {} ms after the silence",
                    Long.toHexString(sessionId),
                    TimeUnit.NANOSECONDS.toMillis(end - last),
                    TimeUnit.NANOSECONDS.toMillis(watch.suspendedAtNanos - silent),
                    noticed ? "noticed" : "cut",
                    TimeUnit.NANOSECONDS.toMillis(watch.reconnectedAtNanos - end));
            if (!back || watch.lost || Sessions.current(client) != sessionId) {
                throw new IllegalStateException("session 0x" + Long.toHexString(sessionId) + " did not come back after "
                        + silence + " (reconnected " + back + ", lost " + watch.lost + ")");
            }
            return sessionId;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while silencing the connection of " + client, e);
        } finally {
            client.getConnectionStateListenable().removeListener(watch);
        }
    }

    /**
     * Deletes one lock node of {@code lockPath} as a stranger with access to the path would (an operator, a cleanup
     * script): its holder or waiter is not asked. {@code pick} chooses the node among the children, sorted in queue
     * order by their sequence number: an even pick the first (a holder's), an odd one the child at {@code pick / 2}
     * modulo their number. {@code beforeDelete} is told the node's creation zxid before the delete is sent, so that a
     * {@link SafetyMonitor} can stop counting its holds as live ({@link SafetyMonitor#nodeDeleted}) before anyone else
     * can take the lock.
     *
     * @param stranger a connected client that may delete the path's children
     * @param lockPath the lock path
     * @param pick chooses the node, at least 0
     * @param beforeDelete told the creation zxid of the node about to be deleted
     * @return the path of the node deleted
     * @throws IllegalStateException if the lock path has no child now, or the chosen node went before the stranger
     *     deleted it (then {@code beforeDelete} has been told), or ZooKeeper refuses
     */
    public static String deleteLockNode(
            CuratorFramework stranger, String lockPath, int pick, LongConsumer beforeDelete) {
        try {
            List<String> children;
            try {
                children = stranger.getChildren().forPath(lockPath);
            } catch (KeeperException.NoNodeException e) {
                children = List.of();
            }
            if (children.isEmpty()) {
                throw new IllegalStateException("no lock node to delete under " + lockPath);
            }
            List<String> queue = children.stream()
                    .sorted(Comparator.comparing(Faults::sequenceOf))
                    .toList();
            String node = ZKPaths.makePath(lockPath, queue.get(pick % 2 == 0 ? 0 : (pick / 2) % queue.size()));
            Stat stat = stranger.checkExists().forPath(node);
            if (stat == null) {
                throw new IllegalStateException("the lock node went before the stranger could read it: " + node);
            }
            beforeDelete.accept(stat.getCzxid());
            try {
                stranger.delete().forPath(node);
            } catch (KeeperException.NoNodeException e) {
                throw new IllegalStateException("the lock node went before the stranger could delete it: " + node, e);
            }
            return node;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the stranger could not delete a lock node under " + lockPath, e);
        }
    }

    /**
     * Closes the client, as a process that shuts down would, while its threads may be acquiring or holding: tells
     * {@code beforeEnd} the session the close ends, then closes the client, which asks the server to close the session
     * (the server deletes its ephemeral nodes before it answers; a client that is not connected now cannot ask, and its
     * nodes stay until the session times out). Whatever the client's threads do on it from then on fails.
     *
     * @param client a started client
     * @param beforeEnd told the id of the client's session (0 if it has none now) just before the close
     * @return the id of the session the close ended, or 0
     */
    public static long closeClient(CuratorFramework client, LongConsumer beforeEnd) {
        long sessionId = Sessions.current(client);
        beforeEnd.accept(sessionId);
        client.close();
        return sessionId;
    }

    /** The sequence number a lock node's name ends with (its last 10 characters); the whole name if it is shorter. */
    private static String sequenceOf(String node) {
        return node.length() >= 10 ? node.substring(node.length() - 10) : node;
    }

    /** Present once the client's handle of the moment is connected, or the client is closed. */
    private static Optional<Boolean> connectedOrClosed(CuratorFramework client) {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            return Optional.of(Boolean.TRUE);
        }
        try {
            return Optional.of(handleOf(client).getState().isConnected()).filter(Boolean::booleanValue);
        } catch (IllegalStateException noHandleNow) { // Curator is making a new one
            return Optional.empty();
        }
    }

    private static ZooKeeper handleOf(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle in " + client, e);
        }
    }

    private static void requireFraction(double value, String name) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " must be from 0 to 1, not " + value);
        }
    }

    private static void parkUntil(long deadlineNanos) throws InterruptedException {
        for (long left = deadlineNanos - System.nanoTime(); left > 0; left = deadlineNanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted during a silence");
            }
        }
    }

    /** What Curator reported to the client while its connection was silenced. */
    private static final class ConnectionWatch implements ConnectionStateListener {
        final CountDownLatch suspended = new CountDownLatch(1);
        final CountDownLatch reconnected = new CountDownLatch(1);
        volatile long suspendedAtNanos;
        volatile long reconnectedAtNanos;
        volatile boolean lost;

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState state) {
            switch (state) {
                case SUSPENDED -> {
                    suspendedAtNanos = System.nanoTime();
                    suspended.countDown();
                }
                case LOST -> lost = true;
                case RECONNECTED -> {
                    if (suspended.getCount() == 0) {
                        reconnectedAtNanos = System.nanoTime();
                        reconnected.countDown();
                    }
                }
                default -> {}
            }
        }
    }
}
