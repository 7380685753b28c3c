package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the engine deletes nodes of ours that must not stay: at once on the calling thread, in the background with
 * Curator's guaranteed delete (which retries once the connection is back), or, for a create whose reply was lost,
 * by sweeping the queue for the node's protected prefix. Every delete here costs one request; a sweep costs one
 * listing and one delete per node it finds. Stateless and safe for use by multiple threads.
 */
public final class NodeDeletes {
    private static final Logger logger = LoggerFactory.getLogger(NodeDeletes.class);

    private NodeDeletes() {}

    /**
     * Deletes a node {@code lock} held, on the calling thread, waiting for the reply until {@code untilNanos} at the
     * latest: the release's hooks, front-node mark and release in flight around {@link #deleteNow}. Never throws for a
     * lost connection.
     */
    public static void deleteHeld(LockPath lock, LockNode node, long untilNanos) {
        String path = lock.path();
        lock.hooks().beforeRelease(path, node.name());
        ClientContext ours = lock.context();
        ours.frontNodes().releasing(node);
        lock.deleting(node.name());
        ReleasesInFlight.Release release = ours.releases().begin(node.fixedPath(), node.sessionId());
        try {
            if (!lock.port().isStarted()) {
                logger.debug("{}: client closed; {} went with its session", path, node);
            } else if (deleteNow(lock, node.path(), untilNanos)) {
                logger.debug("{}: released {}", path, node);
            }
        } finally {
            ours.frontNodes().released(node);
            lock.hooks().released(path, node.name());
            ours.releases().end(release);
        }
    }

    /**
     * Deletes a node of ours, waiting for the reply on the calling thread at most one request timeout; see
     * {@link #deleteNow(LockPath, String, long)}.
     */
    public static boolean deleteNow(LockPath lock, String nodePath) {
        return deleteNow(lock, nodePath, Parking.nanoTime() + lock.requestTimeoutNanos());
    }

    /**
     * Deletes a node of ours, waiting for the reply on the calling thread until {@code untilNanos} (on {@link
     * Parking#nanoTime()}: {@link System#nanoTime()} but on a simulated thread) at the latest. ZooKeeper's client does
     * not bound that wait itself: a request sent while it has just found the connection silent, and is connecting
     * again, waits in its queue until a server answers (seen on a real ensemble whose leader was paused: an acquire's
     * give-up waited 2.4 s for the new leader, past its timeout plus one request timeout). If the connection is down,
     * the reply is a lost connection, the client's background delete takes over (Curator's guaranteed delete, {@link
     * ClientPort#deleteInBackground}) and retries when the connection comes back. If the reply does not come in time,
     * or the thread is interrupted (the flag is kept), the thread goes on and the delete on its way decides: its reply
     * hands it to the background only if the connection was lost meanwhile. Before, a late reply sent a second delete
     * at once: a server behind a backlog (10,000 holders releasing into 100,000 waiters' requests on one client) was
     * sent about 13,500 deletes too many in each drain, each answered NONODE. Reaches the client only through its
     * port. Returns whether the node is known to be gone.
     */
    public static boolean deleteNow(LockPath lock, String nodePath, long untilNanos) {
        lock.deleting(ZKPaths.getNodeFromPath(nodePath));
        ClientPort port = lock.context().port();
        SessionPort session = port.connected();
        if (session != null) {
            CompletableFuture<Reply> sent = session.delete(lock.fixed(nodePath));
            Reply reply = awaitReply(sent, untilNanos);
            if (reply == null) {
                sent.thenAccept(late -> lateReply(lock, nodePath, late));
                return false;
            }
            if (reply.isOk() || reply.code() == KeeperException.Code.NONODE) {
                return true;
            }
            if (!reply.isRetryable()) {
                throw lock.failure("delete " + nodePath, KeeperException.create(reply.code(), nodePath), false);
            }
        }
        port.deleteInBackground(lock, nodePath);
        return false;
    }

    /** The reply of a delete whose thread went on without it: a lost connection hands it to the background. */
    private static void lateReply(LockPath lock, String nodePath, Reply late) {
        if (late.isRetryable()) {
            lock.context().port().deleteInBackground(lock, nodePath);
        } else if (!late.isOk() && late.code() != KeeperException.Code.NONODE) {
            logger.warn(
                    "{}: the delete of {} failed with {}; it goes when its session ends",
                    lock.path(),
                    nodePath,
                    late.code());
        } else {
            logger.debug("{}: {} deleted, its reply late", lock.path(), nodePath);
        }
    }

    /**
     * Waits for a delete's reply on the calling thread until {@code untilNanos}; null if it did not come by then or the
     * thread was interrupted (the flag is kept): the delete is still on its way.
     */
    private static Reply awaitReply(CompletableFuture<Reply> reply, long untilNanos) {
        try {
            return Parking.get(reply, Math.max(0, untilNanos - Parking.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            throw new AssertionError("a ZooKeeper callback failed", e.getCause());
        }
    }

    /** Hands a delete to Curator's guaranteed delete, which retries it in the background until it succeeds. */
    public static void deleteInBackground(LockPath lock, String nodePath) {
        lock.deleting(ZKPaths.getNodeFromPath(nodePath));
        String path = lock.path();
        if (lock.client().getState() != CuratorFrameworkState.STARTED) {
            logger.debug("{}: client closed; {} went with its session", path, nodePath);
            return;
        }
        logger.warn("{}: could not delete {} now; it will be deleted when the connection returns", path, nodePath);
        try {
            lock.client().delete().guaranteed().inBackground().forPath(nodePath);
        } catch (Exception e) {
            logger.warn("{}: guaranteed delete of {} not scheduled; it goes when its session ends", path, nodePath, e);
        }
    }

    /**
     * Finds and deletes, in the background, the node a create with {@code prefix} may have made before its connection
     * was lost: the reply never came, so only its protected name can find it ({@link LostCreateSweep}, retried until
     * the session that sent it ends).
     */
    public static void sweepInBackground(LockPath lock, String prefix) {
        LostCreateSweep.start(lock, prefix);
    }

    /**
     * Sends the delete of a released hold's node (one request, not waited for); the reply tells the client's front
     * nodes, and a delete that failed with the connection is left to Curator's guaranteed delete.
     */
    static void deleteReleased(LockPath lock, SessionPort handle, LockNode hold) {
        handle.delete(hold.fixedPath()).thenAccept(reply -> released(lock, hold, reply));
    }

    /**
     * As {@link #deleteReleased}, in one transaction that first checks each of {@code mustStand} (one request): a node
     * found deleted is LOST ({@link LockNode#foundDeleted}) before the hold's node is deleted alone; see {@link
     * LockPath#endLater(LockNode, List)}.
     */
    static void deleteReleasedChecking(LockPath lock, SessionPort handle, LockNode hold, List<LockNode> mustStand) {
        List<Op> ops = new ArrayList<>();
        for (LockNode node : mustStand) {
            ops.add(Op.check(node.fixedPath(), -1));
        }
        ops.add(Op.delete(hold.fixedPath(), -1));
        handle.multi(ops).thenAccept(reply -> {
            boolean lost = false;
            for (int i = 0; i < mustStand.size() && i < reply.results().size(); i++) {
                if (reply.results().get(i) instanceof OpResult.ErrorResult error
                        && error.getErr() == KeeperException.Code.NONODE.intValue()) {
                    mustStand.get(i).foundDeleted("its node was deleted by another client before it was held");
                    lost = true;
                }
            }
            if (lost) {
                deleteReleased(lock, handle, hold);
            } else {
                released(lock, hold, reply);
            }
        });
    }

    private static void released(LockPath lock, LockNode hold, Reply reply) {
        lock.context().frontNodes().released(hold);
        if (reply.isRetryable()) {
            lock.port().deleteInBackground(lock, hold.path());
        } else {
            logger.debug("{}: released {} ({})", lock.path(), hold, reply.code());
        }
    }
}
