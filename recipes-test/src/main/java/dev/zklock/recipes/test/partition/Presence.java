package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.HistoryWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client JVM's sessions as the history and the observer see them: on each new session it records {@code session
 * invoke "<id> <sessionIdHex>"} under the process {@code <id>}, and it keeps the ephemeral presence node {@code
 * /partitions-clients/<id>} on the current session, so that the observer sees the session end when the node goes.
 *
 * <p>A new session may come while the server still keeps the old one (the client gave it up after a long silence): the
 * old session's presence node then stands until the server expires it, and deleting it would tell the observer of an
 * end that has not happened. So the node is made anew only once the old one is gone: a watch on it waits for that.
 *
 * <p>Thread-safe: connection states arrive on Curator's thread and watch events on ZooKeeper's; both hand the work to
 * one thread of its own, which {@link #close()} ends. Cost: one read of the session id (no request) per connection
 * state; one create per session, and one exists with a watch while an old node stands.
 */
final class Presence implements ConnectionStateListener, AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(Presence.class);

    private final CuratorFramework client;
    private final String id;
    private final String path;
    private final HistoryWriter history;
    private final ExecutorService thread;
    private long session; // confined to the thread

    Presence(CuratorFramework client, String id, HistoryWriter history) {
        this.client = client;
        this.id = id;
        this.path = PartitionWorkloads.CLIENTS + "/" + id;
        this.history = history;
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread presence = new Thread(runnable, id + "-presence");
            presence.setDaemon(true);
            return presence;
        });
    }

    @Override
    public void stateChanged(CuratorFramework changed, ConnectionState state) {
        if (state.isConnected()) {
            submit(this::connected);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }

    private void connected() {
        long now;
        try {
            now = client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception noHandle) {
            return; // the client is closing
        }
        if (now != session && now != 0) {
            session = now;
            history.record(id, "invoke", "session", "-", id + " " + Long.toHexString(now));
        }
        place(now);
    }

    /** Makes the presence node on {@code ours}, or waits for an old session's node to go. */
    private void place(long ours) {
        if (ours != session) {
            return; // a newer session came meanwhile, and places its own node
        }
        try {
            client.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(path, Long.toHexString(ours).getBytes(StandardCharsets.UTF_8));
        } catch (KeeperException.NodeExistsException e) {
            waitForOldNode(ours);
        } catch (Exception e) {
            // The connection went: the next CONNECTED or RECONNECTED tries again.
            logger.debug("presence node {} of session 0x{} not made now", path, Long.toHexString(ours), e);
        }
    }

    private void waitForOldNode(long ours) {
        try {
            Stat stat = client.checkExists()
                    .usingWatcher((Watcher) event -> submit(() -> place(ours)))
                    .forPath(path);
            if (stat == null) {
                submit(() -> place(ours));
            }
        } catch (Exception e) {
            logger.debug("presence node {} not watched now", path, e);
        }
    }

    private void submit(Runnable work) {
        try {
            thread.execute(work);
        } catch (RejectedExecutionException closed) {
            // closed: the client's close ends the session, and the node with it
        }
    }
}
