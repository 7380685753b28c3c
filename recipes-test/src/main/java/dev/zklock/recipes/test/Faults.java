package dev.zklock.recipes.test;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Real faults for tests: nothing here is simulated on the client alone.
 *
 * <p>Thread-safe: every method works on the handles it is given.
 */
public final class Faults {
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
}
