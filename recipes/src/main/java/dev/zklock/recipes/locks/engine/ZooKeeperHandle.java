package dev.zklock.recipes.locks.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The client's ZooKeeper handle as it was when taken, with its session id: every request sent through it goes out on
 * that session, or fails if the session has ended. Asynchronous requests are answered by a future {@link Reply}, and
 * synchronous ones ({@code ...Now}) serve the steps where the caller waits anyway. ZooKeeper's client hands an
 * asynchronous reply to its event thread before a waiting thread sees it, but wakes the thread that waits for a
 * synchronous reply itself, which saves the acquire path one thread hop. A synchronous
 * request waits for its reply or for the client to declare the connection lost, within {@link #requestTimeoutNanos()}.
 *
 * <p>The engine sends its hot-path requests here, on the raw ZooKeeper handle, rather than through Curator's
 * builders, for two reasons: requests sent back-to-back on one session are answered in order, so a create and a listing
 * go out together and cost one round trip; and the engine, not Curator's retry policy, decides what a lost connection
 * means for a create (a retried create of a sequential node could leave a second node behind). Paths given here are
 * already fixed for the client's namespace. Callbacks run on ZooKeeper's event thread and only complete futures.
 * Immutable and safe for use by multiple threads.
 */
public final class ZooKeeperHandle implements SessionPort {
    private final ZooKeeper zk;
    private final long sessionId;

    private ZooKeeperHandle(ZooKeeper zk) {
        this.zk = zk;
        this.sessionId = zk.getSessionId();
    }

    /** Returns a handle on {@code zk} and the session it is on now; the client's port keeps it ({@link CuratorClientPort}). */
    static ZooKeeperHandle on(ZooKeeper zk) {
        return new ZooKeeperHandle(zk);
    }

    /** The ZooKeeper instance the handle sends on. */
    ZooKeeper zooKeeper() {
        return zk;
    }

    /**
     * Returns the client's current handle, or null if Curator cannot hand one out now (connection lost).
     *
     * @throws IllegalStateException if the client is closed
     */
    public static ZooKeeperHandle current(CuratorFramework client) throws InterruptedException {
        try {
            return new ZooKeeperHandle(client.getZookeeperClient().getZooKeeper());
        } catch (InterruptedException | IllegalStateException e) {
            throw e;
        } catch (Exception connectionProblem) {
            return null;
        }
    }

    /** Returns the client's current handle, or null if there is none now or the client is closed; keeps interrupts. */
    public static ZooKeeperHandle currentQuietly(CuratorFramework client) {
        try {
            return current(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (IllegalStateException closed) {
            return null;
        }
    }

    /** Returns the session every request of this handle goes out on. */
    @Override
    public long sessionId() {
        return sessionId;
    }

    /**
     * Returns the longest a request waits for its reply before ZooKeeper's client gives the connection up and fails it
     * with CONNECTIONLOSS: two thirds of the negotiated session timeout, the client's read timeout.
     */
    public long requestTimeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(zk.getSessionTimeout() * 2L / 3);
    }

    /** Creates a node: {@link Reply.Created} or {@link Reply.Failed}. */
    public CompletableFuture<Reply> create(String path, byte[] data, List<ACL> acl, CreateMode mode) {
        return create(path, data, acl, mode, Function.identity());
    }

    /**
     * Creates a node, and answers what {@code onReply} makes of the reply ({@link Reply.Created} or
     * {@link Reply.Failed}). {@code onReply} runs on ZooKeeper's event thread, in the order the session's replies come,
     * before any later reply is handed on: it must be quick and never block.
     */
    @Override
    public <T> CompletableFuture<T> create(
            String path, byte[] data, List<ACL> acl, CreateMode mode, Function<Reply, T> onReply) {
        CompletableFuture<T> reply = new CompletableFuture<>();
        AsyncCallback.Create2Callback callback = (rc, p, ctx, name, stat) ->
                reply.complete(onReply.apply(rc == 0 ? new Reply.Created(name, stat.getCzxid()) : failed(rc)));
        send().create(path, data, acl, mode, callback, null);
        return reply;
    }

    /** Sends {@code ops} as one transaction; the reply carries each operation's result. */
    @Override
    public CompletableFuture<Reply.Transaction> multi(List<Op> ops) {
        CompletableFuture<Reply.Transaction> reply = new CompletableFuture<>();
        send().multi(
                        ops,
                        (rc, p, ctx, results) -> reply.complete(
                                new Reply.Transaction(Code.get(rc), results == null ? List.of() : results)),
                        null);
        return reply;
    }

    /** Lists a node's children: {@link Reply.Children} or {@link Reply.Failed}. */
    @Override
    public CompletableFuture<Reply> children(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.ChildrenCallback callback =
                (rc, p, ctx, children) -> reply.complete(rc == 0 ? new Reply.Children(children) : failed(rc));
        send().getChildren(path, false, callback, null);
        return reply;
    }

    /**
     * Lists a node's children and leaves {@code watcher} on them: it fires once when a child is added or removed, or
     * when the node itself goes. {@link Reply.Children} or {@link Reply.Failed} (a missing node leaves no watch).
     */
    @Override
    public CompletableFuture<Reply> watchChildren(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.ChildrenCallback callback =
                (rc, p, ctx, children) -> reply.complete(rc == 0 ? new Reply.Children(children) : failed(rc));
        send().getChildren(path, watcher, callback, null);
        return reply;
    }

    /**
     * Lists a node's children and waits for the reply on the calling thread: ZooKeeper's client wakes a thread that
     * waits for a synchronous reply itself, where an asynchronous reply first passes through its event thread.
     */
    @Override
    public Reply childrenNow(String path) throws InterruptedException {
        try {
            return new Reply.Children(send().getChildren(path, false));
        } catch (KeeperException e) {
            return new Reply.Failed(e.code());
        }
    }

    /**
     * Reads a node's data, leaving {@code watcher} on it, and waits for the reply on the calling thread; see
     * {@link #watchData} for why a data read, and {@link #childrenNow} for why the calling thread.
     */
    @Override
    public Reply watchDataNow(String path, Watcher watcher) throws InterruptedException {
        try {
            Stat stat = new Stat();
            send().getData(path, watcher, stat);
            return new Reply.NodeStat(stat);
        } catch (KeeperException e) {
            return new Reply.Failed(e.code());
        }
    }

    /** Brings the server this session talks to up to date with the leader, so that a listing sent next is current. */
    @Override
    public CompletableFuture<Reply> sync(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        send().sync(path, (rc, p, ctx) -> reply.complete(done(rc)), null);
        return reply;
    }

    /**
     * Reads a node's data and leaves {@code watcher} on it. A data read, not {@code exists}: on a node that is already
     * gone it fails with {@code NONODE} and leaves no watch behind, where {@code exists} would leave one.
     */
    @Override
    public CompletableFuture<Reply> watchData(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.DataCallback callback =
                (rc, p, ctx, data, stat) -> reply.complete(rc == 0 ? new Reply.NodeStat(stat) : failed(rc));
        send().getData(path, watcher, callback, null);
        return reply;
    }

    /**
     * Reads a node's data and leaves {@code watcher} on it, as {@link #watchData(String, Watcher)}, answering
     * {@code callback} itself on ZooKeeper's event thread: no future for a caller that keeps its own state.
     */
    @Override
    public void watchData(String path, Watcher watcher, AsyncCallback.DataCallback callback) {
        send().getData(path, watcher, callback, null);
    }

    /** Reads a node's data and leaves {@code watcher} on it: {@link Reply.Data} or {@link Reply.Failed}. */
    public CompletableFuture<Reply> readData(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.DataCallback callback =
                (rc, p, ctx, data, stat) -> reply.complete(rc == 0 ? new Reply.Data(data, stat) : failed(rc));
        send().getData(path, watcher, callback, null);
        return reply;
    }

    /**
     * Reads a node's stat and leaves {@code watcher} on it whether or not it exists: it fires once when the node is
     * made, changed or deleted. {@link Reply.NodeStat}, or {@link Reply.Failed} with {@code NONODE} (the watch stays,
     * to hear of the create). Only for a node that may not exist yet: on one that does, a data read.
     */
    public CompletableFuture<Reply> watchExists(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.StatCallback callback =
                (rc, p, ctx, stat) -> reply.complete(rc == 0 ? new Reply.NodeStat(stat) : failed(rc));
        send().exists(path, watcher, callback, null);
        return reply;
    }

    /** Reads a node's stat, with no watch: {@link Reply.NodeStat} or {@link Reply.Failed}. */
    @Override
    public CompletableFuture<Reply> exists(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        AsyncCallback.StatCallback callback =
                (rc, p, ctx, stat) -> reply.complete(rc == 0 ? new Reply.NodeStat(stat) : failed(rc));
        send().exists(path, false, callback, null);
        return reply;
    }

    /** Deletes a node (any version) without waiting: {@link Reply.Done} or {@link Reply.Failed}. */
    @Override
    public CompletableFuture<Reply> delete(String path) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        send().delete(path, -1, (rc, p, ctx) -> reply.complete(done(rc)), null);
        return reply;
    }

    /**
     * Removes our watch from {@code path} on the server, and then locally; a removal the server does not answer
     * removes nothing (use {@link LockPath#removeWatch}, which sends it again once connected). Never a local removal
     * in spite of the server: ZooKeeper's client queues the event of a local removal that failed with the connection as
     * a Disconnected event, and its event thread then drops the real Disconnected event as a repeat, so that Curator
     * reports neither SUSPENDED nor RECONNECTED for the outage and no hold of the client goes IN_DOUBT.
     *
     * @param children a child watch, else a data watch
     */
    @Override
    public CompletableFuture<Reply> removeWatch(String path, Watcher watcher, boolean children) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        Watcher.WatcherType type = children ? Watcher.WatcherType.Children : Watcher.WatcherType.Data;
        try {
            send().removeWatches(path, watcher, type, false, (rc, p, ctx) -> reply.complete(done(rc)), null);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            reply.complete(new Reply.Failed(Code.BADARGUMENTS));
        }
        return reply;
    }

    @Override
    public CompletableFuture<Reply> addWatch(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        send().addWatch(
                        path,
                        watcher,
                        AddWatchMode.PERSISTENT_RECURSIVE,
                        (rc, p, ctx) -> reply.complete(done(rc)),
                        null);
        return reply;
    }

    /**
     * As {@link #removeWatch}, for the persistent recursive watch on {@code path}: ZooKeeper's {@code removeAllWatches}
     * with {@code WatcherType.PersistentRecursive}, which removes the watch from the server (a removal of one watcher,
     * {@code checkWatches}, only asks the server whether it has one and leaves it there) and then every persistent
     * recursive watcher of this client on the path locally, {@code watcher} among them. Never a local removal.
     */
    @Override
    public CompletableFuture<Reply> removeWatches(String path, Watcher watcher) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        try {
            send().removeAllWatches(
                            path,
                            Watcher.WatcherType.PersistentRecursive,
                            false,
                            (rc, p, ctx) -> reply.complete(done(rc)),
                            null);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            reply.complete(new Reply.Failed(Code.BADARGUMENTS));
        }
        return reply;
    }

    /** Returns the ZooKeeper code of {@code error}, or null if it is not a {@link KeeperException}. */
    public static Code codeOf(Throwable error) {
        return error instanceof KeeperException ke ? ke.code() : null;
    }

    /** The handle, for one request: counted in the sending thread's {@link RequestTally}, if it has one. */
    private ZooKeeper send() {
        RequestTally.sent();
        return zk;
    }

    private static Reply done(int rc) {
        return rc == 0 ? new Reply.Done() : failed(rc);
    }

    private static Reply failed(int rc) {
        return new Reply.Failed(Code.get(rc));
    }
}
