package dev.zklock.recipes.locks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * Requests on the client's current ZooKeeper session: asynchronous ones answered by a future {@link Reply}, and
 * synchronous ones ({@code ...Now}) for the steps where the caller waits anyway. ZooKeeper's client hands an
 * asynchronous reply to its event thread before a waiting thread sees it, but wakes the thread that waits for a
 * synchronous reply itself: on the acquire path that hop was measured at 7% of an uncontended acquire. A synchronous
 * request waits for its reply or for the client to declare the connection lost, within {@link #requestTimeoutNanos()}.
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

    /**
     * Returns the longest a request waits for its reply before ZooKeeper's client gives the connection up and fails it
     * with CONNECTIONLOSS: two thirds of the negotiated session timeout, the client's read timeout.
     */
    long requestTimeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(zk.getSessionTimeout() * 2L / 3);
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

    /**
     * Lists the children of every path in one read-only transaction: one request for any number of paths. The replies
     * come in the order of {@code paths}, each with its own code (a missing path is NONODE for that path alone).
     */
    CompletableFuture<List<Reply>> childrenOfAll(List<String> paths) {
        List<Op> reads = new ArrayList<>();
        for (String path : paths) {
            reads.add(Op.getChildren(path));
        }
        return multi(reads).thenApply(reply -> {
            List<Reply> replies = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                OpResult result = reply.results().size() > i ? reply.results().get(i) : null;
                if (result instanceof OpResult.GetChildrenResult listing) {
                    replies.add(new Reply(Code.OK, null, null, listing.getChildren(), sessionId));
                } else {
                    Code code = result instanceof OpResult.ErrorResult error ? Code.get(error.getErr()) : reply.code();
                    replies.add(new Reply(code, null, null, List.of(), sessionId));
                }
            }
            return replies;
        });
    }

    CompletableFuture<Reply> children(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.ChildrenCallback callback = (rc, p, ctx, children) ->
                reply.complete(new Reply(Code.get(rc), null, null, children == null ? List.of() : children, sessionId));
        zk.getChildren(path, false, callback, null);
        return reply;
    }

    /**
     * Lists a node's children and waits for the reply on the calling thread: ZooKeeper's client wakes a thread that
     * waits for a synchronous reply itself, where an asynchronous reply first passes through its event thread.
     */
    Reply childrenNow(String path) throws InterruptedException {
        try {
            return new Reply(Code.OK, null, null, zk.getChildren(path, false), sessionId);
        } catch (KeeperException e) {
            return new Reply(e.code(), null, null, List.of(), sessionId);
        }
    }

    /**
     * Reads a node's data, leaving {@code watcher} on it, and waits for the reply on the calling thread; see
     * {@link #watchData} for why a data read, and {@link #childrenNow} for why the calling thread.
     */
    Reply watchDataNow(String path, Watcher watcher) throws InterruptedException {
        try {
            Stat stat = new Stat();
            zk.getData(path, watcher, stat);
            return new Reply(Code.OK, null, stat, List.of(), sessionId);
        } catch (KeeperException e) {
            return new Reply(e.code(), null, null, List.of(), sessionId);
        }
    }

    /** Deletes a node (any version) and waits for the reply on the calling thread; see {@link #childrenNow}. */
    Reply deleteNow(String path) throws InterruptedException {
        try {
            zk.delete(path, -1);
            return new Reply(Code.OK, null, null, List.of(), sessionId);
        } catch (KeeperException e) {
            return new Reply(e.code(), null, null, List.of(), sessionId);
        }
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

    /**
     * Lists every ephemeral node this session owns, in one request whatever their number (full paths, namespace
     * included): how a reconnect learns which of many held nodes still stand.
     */
    CompletableFuture<Reply> ephemerals() {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        zk.getEphemerals(
                (rc, ctx, paths) -> reply.complete(
                        new Reply(Code.get(rc), null, null, paths == null ? List.of() : paths, sessionId)),
                null);
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
