package dev.zklock.recipes.locks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.utils.ZKPaths;

/**
 * One lock node this process created and holds or waits with: its path, name and owning session, and its fencing
 * token (the node's creation zxid, which grows across the whole ensemble).
 *
 * <p>The token comes from the create's reply. An acquire that finds our node in the pipelined listing does not wait
 * for that reply (ZooKeeper hands asynchronous replies to its event thread, one thread hop later): the reply was
 * read before the listing's, so asking for the token then costs at most that hop, and the token is kept as soon as the
 * reply is handed over. Immutable apart from the token; safe for use by multiple threads.
 */
final class LockNode {
    private final LockQueue queue; // its lock path and namespace: a hold keeps no copy of them
    private final String name;
    private final long sessionId;
    private volatile CompletableFuture<Long> created; // until the token is known, then null
    private volatile long token;
    private volatile boolean front; // granted with no node ranked before it
    private final long waitNanos;

    /**
     * A node whose token is known.
     *
     * @param queue the queue of the lock path the node is a child of
     */
    LockNode(LockQueue queue, String name, long token, long sessionId) {
        this.queue = queue;
        this.name = name;
        this.sessionId = sessionId;
        this.token = token;
        this.waitNanos = 0;
    }

    private LockNode(LockQueue queue, String name, long sessionId, CompletableFuture<Long> created, long waitNanos) {
        this.queue = queue;
        this.name = name;
        this.sessionId = sessionId;
        this.created = created;
        this.waitNanos = waitNanos;
        created.thenAccept(known -> {
            token = known;
            this.created = null;
        });
    }

    /**
     * A node found in a listing while the reply to its create, read already, is still on its way to us.
     *
     * @param waitNanos the longest {@link #token()} waits for that reply to be handed over (one request timeout)
     */
    static LockNode createdBy(
            LockQueue queue, String name, long sessionId, CompletableFuture<Long> created, long waitNanos) {
        return new LockNode(queue, name, sessionId, created, waitNanos);
    }

    /** The node's full path, relative to the client's namespace; made on each call, not kept. */
    String path() {
        return ZKPaths.makePath(queue.path(), name);
    }

    /** The node's full path with the client's namespace, as ZooKeeper itself names it; made on each call. */
    String fixedPath() {
        return queue.fixed(path());
    }

    /** The node's name, the last segment of {@link #path()}. */
    String name() {
        return name;
    }

    /** Marks the node as granted with no node ranked before it. */
    void grantedAtFront() {
        front = true;
    }

    /** Tells whether the node was granted with no node ranked before it. */
    boolean isGrantedAtFront() {
        return front;
    }

    /** The session that owns the ephemeral node. */
    long sessionId() {
        return sessionId;
    }

    /**
     * The fencing token: the node's creation zxid. Waits, at most one request timeout, for the create's reply to be
     * handed over by ZooKeeper's event thread if it has not been yet.
     *
     * @throws ZkLockException if the reply is not handed over in that time: something blocks ZooKeeper's event thread
     */
    long token() {
        long known = token;
        CompletableFuture<Long> pending = created;
        if (known != 0 || pending == null) {
            return token;
        }
        Long handed = Uninterruptibles.await(pending, waitNanos);
        if (handed == null) {
            throw new ZkLockException(
                    String.format(
                            "fencing token of node '%s' of lock '%s' not known: the reply to its create was not handed"
                                    + " over within %d ms; is a listener or watcher blocking ZooKeeper's event thread?",
                            path(), queue.path(), TimeUnit.NANOSECONDS.toMillis(waitNanos)),
                    queue.path(),
                    false,
                    null,
                    null);
        }
        return handed;
    }

    @Override
    public String toString() {
        String shown = token != 0 ? Long.toString(token) : "pending";
        return path() + " (token " + shown + ", session 0x" + Long.toHexString(sessionId) + ")";
    }
}
