package dev.zklock.recipes.locks.engine;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Curator's revocation protocol on one held node: a data watch on the node, and a request is the node's data set to
 * {@code __REVOKE__} (what Curator's {@code Revoker.attemptRevoke} writes). Each request runs the lock's listener once,
 * on the listener's executor, never on ZooKeeper's event thread. Costs one data read when the hold begins, and one per
 * change of the node's data; the watch goes with the node's delete. Immutable and safe for use by multiple threads.
 */
public final class RevocationWatch {
    /** The data Curator's {@code Revoker} writes to ask a holder to let go. */
    public static final byte[] REVOKE_MESSAGE = "__REVOKE__".getBytes(StandardCharsets.UTF_8);

    private static final Logger logger = LoggerFactory.getLogger(RevocationWatch.class);

    private final Runnable listener;
    private final Executor executor;

    /**
     * @param listener runs once per revocation request
     * @param executor where it runs
     */
    public RevocationWatch(Runnable listener, Executor executor) {
        this.listener = listener;
        this.executor = executor;
    }

    /** Starts watching {@code node}, which was just granted; one request. */
    void watch(LockPath path, LockNode node) {
        SessionPort session = path.port().current();
        if (session == null) {
            logger.warn("{}: no connection to watch {} for revocation requests", path.path(), node);
            return;
        }
        read(path, node, session);
    }

    private void read(LockPath path, LockNode node, SessionPort session) {
        Watcher watcher = event -> changed(path, node, event);
        session.watchData(node.fixedPath(), watcher, (rc, nodePath, ctx, data, stat) -> {
            if (rc == KeeperException.Code.OK.intValue() && Arrays.equals(data, REVOKE_MESSAGE)) {
                logger.debug("{}: revocation requested of {}", path.path(), node);
                path.revocationRequested(node); // a cohort passes the node no more
                try {
                    executor.execute(() -> {
                        try {
                            listener.run();
                        } catch (RuntimeException e) {
                            logger.warn("{}: revocation listener of {} threw", path.path(), node, e);
                        }
                    });
                } catch (RejectedExecutionException e) {
                    logger.warn("{}: revocation listener of {} not run: its executor refused it", path.path(), node, e);
                }
            }
        });
    }

    private void changed(LockPath path, LockNode node, WatchedEvent event) {
        if (event.getType() != Watcher.Event.EventType.NodeDataChanged) {
            return; // deleted (released, or lost), or a connection event: the watch stays while the session lives
        }
        SessionPort session = path.port().current();
        if (session != null) {
            read(path, node, session);
        }
    }
}
