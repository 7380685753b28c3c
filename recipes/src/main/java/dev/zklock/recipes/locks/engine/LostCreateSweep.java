package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and deletes the node a create may have made when its reply was lost with the connection: only its protected
 * prefix can find it, so the queue is listed and a child with that prefix goes by a guaranteed delete. The node is an
 * ephemeral of the session that sent the create, which may well outlive the outage; left standing, it would sit in the
 * queue with nobody to hold or release it, and every waiter behind it would wait until that session ended (a 10-minute
 * partition run saw a lock path stall for 200 s so, until the owner's JVM was paused past its session).
 *
 * <p>So the sweep is as persistent as a guaranteed delete: a listing that fails while the connection is down is sent
 * again once the client's {@link ConnectionTracker} reports a change with the connection up, for as long as the session
 * that started the sweep lasts (when it ends, its nodes go with it) and the client is open. Curator's background
 * operations gave up after the client's retry policy, and with them the sweep.
 *
 * <p>Safe for use by multiple threads; each attempt runs on the thread that hears the previous one's end (ZooKeeper's
 * event thread, Curator's connection-state thread, or the client's timer) and sends without waiting. Cost: one listing
 * per attempt, and one delete per node found.
 */
final class LostCreateSweep {
    private static final Logger logger = LoggerFactory.getLogger(LostCreateSweep.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final LockPath lock;
    private final String prefix;
    private final long sessionId;

    private LostCreateSweep(LockPath lock, String prefix, long sessionId) {
        this.lock = lock;
        this.prefix = prefix;
        this.sessionId = sessionId;
    }

    /** Starts the sweep of {@code lock}'s queue for {@code prefix}, on the client's session now. */
    static void start(LockPath lock, String prefix) {
        if (lock.client().getState() != CuratorFrameworkState.STARTED) {
            logger.debug("{}: client closed; a node of prefix {} went with its session", lock.path(), prefix);
            return;
        }
        ZooKeeperHandle handle = ZooKeeperHandle.currentQuietly(lock.client());
        if (handle == null) {
            logger.debug("{}: no session now; a node of prefix {} goes with the old one", lock.path(), prefix);
            return;
        }
        logger.warn("{}: a create with prefix {} had no reply; deleting its node if it exists", lock.path(), prefix);
        new LostCreateSweep(lock, prefix, handle.sessionId()).attempt();
    }

    private void attempt() {
        if (lock.client().getState() != CuratorFrameworkState.STARTED) {
            return; // closed: the session's nodes went with it
        }
        ZooKeeperHandle handle = ZooKeeperHandle.currentQuietly(lock.client());
        if (handle == null || handle.sessionId() != sessionId) {
            return; // the session ended: the node, if any, went with it
        }
        handle.children(lock.fixed(lock.path())).thenAccept(reply -> {
            if (reply instanceof Reply.Children listed) {
                for (String child : listed.children()) {
                    if (child.startsWith(prefix)) {
                        NodeDeletes.deleteInBackground(lock, ZKPaths.makePath(lock.path(), child));
                    }
                }
            } else if (reply.code() != Code.NONODE) {
                if (reply.isRetryable()) {
                    again();
                } else {
                    logger.warn(
                            "{}: sweep for prefix {} refused ({}); the node goes when its session ends",
                            lock.path(),
                            prefix,
                            reply.code());
                }
            }
        });
    }

    /** Tries again once the connection is up: now if it is (after a short pause), else at the tracker's next change. */
    private void again() {
        CompletableFuture<Void> change = lock.context().tracker().nextChange();
        if (lock.client().getZookeeperClient().isConnected()) {
            if (lock.context().timer().schedule(this::attempt, RETRY_NANOS) == null) {
                logger.debug("{}: client closed; a node of prefix {} went with its session", lock.path(), prefix);
            }
        } else {
            change.thenRun(this::attempt);
        }
    }
}
