package dev.zklock.recipes.test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            long sessionId = zk.getSessionId();
            byte[] password = zk.getSessionPasswd();
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper twin = new ZooKeeper(
                    connectString,
                    sessionTimeoutMs,
                    event -> {
                        if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                            connected.countDown();
                        }
                    },
                    sessionId,
                    password);
            try {
                if (!connected.await(sessionTimeoutMs, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("second handle on session 0x" + Long.toHexString(sessionId)
                            + " did not connect to " + connectString);
                }
            } finally {
                twin.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring a session", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot expire the session of " + client, e);
        }
    }
}
