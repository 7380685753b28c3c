package dev.zklock.recipes.locks;

import java.util.concurrent.CompletableFuture;

/**
 * One lock node this process created and holds or waits with: its path, name and owning session, and its fencing
 * token (the node's creation zxid, which grows across the whole ensemble).
 *
 * <p>The token comes from the create's reply. An acquire that finds our node in the pipelined listing does not wait
 * for that reply (ZooKeeper hands asynchronous replies to its event thread, one thread hop later): the reply was
 * read before the listing's, so asking for the token then costs at most that hop. Immutable apart from caching the
 * token; safe for use by multiple threads.
 */
final class LockNode {
    private final String path;
    private final String name;
    private final long sessionId;
    private final CompletableFuture<Long> created;
    private volatile long token;

    /** A node whose token is known. */
    LockNode(String path, String name, long token, long sessionId) {
        this(path, name, sessionId, null);
        this.token = token;
    }

    private LockNode(String path, String name, long sessionId, CompletableFuture<Long> created) {
        this.path = path;
        this.name = name;
        this.sessionId = sessionId;
        this.created = created;
    }

    /** A node found in a listing while the reply to its create, read already, is still on its way to us. */
    static LockNode createdBy(String path, String name, long sessionId, CompletableFuture<Long> created) {
        return new LockNode(path, name, sessionId, created);
    }

    /** The node's full path, relative to the client's namespace. */
    String path() {
        return path;
    }

    /** The node's name, the last segment of {@link #path()}. */
    String name() {
        return name;
    }

    /** The session that owns the ephemeral node. */
    long sessionId() {
        return sessionId;
    }

    /** The fencing token: the node's creation zxid. */
    long token() {
        long known = token;
        if (known == 0) {
            known = Uninterruptibles.await(created, Long.MAX_VALUE);
            token = known;
        }
        return known;
    }

    @Override
    public String toString() {
        String shown = token != 0 ? Long.toString(token) : "pending";
        return path + " (token " + shown + ", session 0x" + Long.toHexString(sessionId) + ")";
    }
}
