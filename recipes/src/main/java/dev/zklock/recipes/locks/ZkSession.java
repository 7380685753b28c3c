package dev.zklock.recipes.locks;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/**
 * Asynchronous requests on the client's current ZooKeeper session, each answered by a future {@link Reply}.
 *
 * <p>The lock queue sends its hot-path requests here, on the raw ZooKeeper handle, rather than through Curator's
 * builders, for two reasons: requests sent back-to-back on one session are answered in order, so a create and a listing
 * go out together and cost one round trip; and the queue, not Curator's retry policy, decides what a lost connection
 * means for a create (a retried create of a sequential node could leave a second node behind). Paths given here are
 * already fixed for the client's namespace. Callbacks run on ZooKeeper's event thread and only complete futures.
 */
final class ZkSession {
    private final ZooKeeper zk;
    private final long sessionId;

    private ZkSession(ZooKeeper zk) {
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    /** Returns the client's current session, or null if Curator cannot hand out a handle now (connection lost). */
    static ZkSession current(CuratorFramework client) throws InterruptedException {
        try {
            return new ZkSession(client.getZookeeperClient().getZooKeeper());
        } catch (InterruptedException | IllegalStateException e) {
            throw e;
        } catch (Exception connectionProblem) {
            return null;
        }
    }

    long sessionId() {
        return sessionId;
    }

    CompletableFuture<Reply> create(String path, byte[] data, List<ACL> acl, CreateMode mode) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.Create2Callback callback =
                (rc, p, ctx, name, stat) -> reply.complete(new Reply(Code.get(rc), name, stat, List.of(), sessionId));
        zk.create(path, data, acl, mode, callback, null);
        return reply;
    }

    /** Sends {@code ops} as one transaction; the reply carries each operation's result. */
    CompletableFuture<MultiReply> multi(List<Op> ops) {
        CompletableFuture<MultiReply> reply = new CompletableFuture<>();
        zk.multi(
                ops,
                (rc, p, ctx, results) ->
                        reply.complete(new MultiReply(Code.get(rc), results == null ? List.of() : results, sessionId)),
                null);
        return reply;
    }

    CompletableFuture<Reply> children(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.ChildrenCallback callback = (rc, p, ctx, children) ->
                reply.complete(new Reply(Code.get(rc), null, null, children == null ? List.of() : children, sessionId));
        zk.getChildren(path, false, callback, null);
        return reply;
    }

    /** Brings the server this session talks to up to date with the leader, so that a listing sent next is current. */
    CompletableFuture<Reply> sync(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        zk.sync(path, (rc, p, ctx) -> reply.complete(new Reply(Code.get(rc), null, null, List.of(), sessionId)), null);
        return reply;
    }

    /**
     * Reads a node's data and leaves {@code watcher} on it. A data read, not {@code exists}: on a node that is already
     * gone it fails with {@code NONODE} and leaves no watch behind, where {@code exists} would leave one.
     */
    CompletableFuture<Reply> watchData(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.DataCallback callback =
                (rc, p, ctx, data, stat) -> reply.complete(new Reply(Code.get(rc), null, stat, List.of(), sessionId));
        zk.getData(path, watcher, callback, null);
        return reply;
    }

    CompletableFuture<Reply> exists(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.StatCallback callback =
                (rc, p, ctx, stat) -> reply.complete(new Reply(Code.get(rc), null, stat, List.of(), sessionId));
        zk.exists(path, false, callback, null);
        return reply;
    }

    CompletableFuture<Reply> delete(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        zk.delete(
                path,
                -1,
                (rc, p, ctx) -> reply.complete(new Reply(Code.get(rc), null, null, List.of(), sessionId)),
                null);
        return reply;
    }

    /** Removes our data watch from {@code path} on the server and, even if the server cannot be reached, locally. */
    CompletableFuture<Reply> removeWatch(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.VoidCallback callback =
                (rc, p, ctx) -> reply.complete(new Reply(Code.get(rc), null, null, List.of(), sessionId));
        zk.removeWatches(path, watcher, Watcher.WatcherType.Data, true, callback, null);
        return reply;
    }

    static KeeperException.Code codeOf(Throwable error) {
        return error instanceof KeeperException ke ? ke.code() : null;
    }
}
