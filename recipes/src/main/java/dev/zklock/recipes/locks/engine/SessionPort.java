package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;

/**
 * The engine's port to one ZooKeeper session: the asynchronous requests and watches its runners send, each answered
 * by a future {@link Reply} (or a callback), in the order sent, on the session's one event thread; a watcher is told
 * of its node's change once, in order with the replies. The production adapter is {@link ZooKeeperHandle}; the
 * simulator's sends to its simulated server. Each method sends one request, one round trip (a transaction of several
 * operations, or the listing of several paths, is one), and never waits for it. Paths are fixed for the client's
 * namespace. A reply or watch callback must be quick and never block. Implementations are immutable (the simulator's
 * are confined to its one thread) and, in production, safe for use by multiple threads.
 *
 * <p>The synchronous calls ({@code ...Now}) are for a runner whose thread waits anyway ({@link BlockingRunner}): the
 * same request, one round trip, with the reply waited for on the calling thread. By default they wait for the
 * asynchronous reply through {@link Parking} (so a simulated thread parks through its port); ZooKeeper's handle uses
 * ZooKeeper's synchronous API, whose reply wakes the waiting thread itself, one thread hop sooner. Either waits until
 * the reply comes or the thread is interrupted; no bound of its own ({@link SyncBound} gives one).
 */
public interface SessionPort {
    /** Returns the session every request goes out on. */
    long sessionId();

    /**
     * Creates a node, and answers what {@code onReply} makes of the reply ({@link Reply.Created} or
     * {@link Reply.Failed}); {@code onReply} runs before any later reply of the session is handed on.
     */
    <T> CompletableFuture<T> create(
            String path, byte[] data, List<ACL> acl, CreateMode mode, Function<Reply, T> onReply);

    /** Sends {@code ops} as one transaction; the reply carries each operation's result. */
    CompletableFuture<Reply.Transaction> multi(List<Op> ops);

    /**
     * Lists the children of every path in one read-only transaction: one request for any number of paths. The replies
     * come in the order of {@code paths}, each {@link Reply.Children} or its own {@link Reply.Failed} (a missing path
     * is NONODE for that path alone).
     */
    default CompletableFuture<List<Reply>> childrenOfAll(List<String> paths) {
        List<Op> reads = new ArrayList<>();
        for (String path : paths) {
            reads.add(Op.getChildren(path));
        }
        return multi(reads).thenApply(reply -> {
            List<Reply> replies = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                OpResult result = reply.results().size() > i ? reply.results().get(i) : null;
                if (result instanceof OpResult.GetChildrenResult listing) {
                    replies.add(new Reply.Children(listing.getChildren()));
                } else {
                    Code code = result instanceof OpResult.ErrorResult error ? Code.get(error.getErr()) : reply.code();
                    replies.add(new Reply.Failed(code == Code.OK ? Code.SYSTEMERROR : code));
                }
            }
            return replies;
        });
    }

    /** Lists a node's children: {@link Reply.Children} or {@link Reply.Failed}. */
    CompletableFuture<Reply> children(String path);

    /**
     * As {@link #children}, waiting for the reply on the calling thread.
     *
     * @throws InterruptedException if the thread is interrupted first (the request stays sent)
     */
    default Reply childrenNow(String path) throws InterruptedException {
        return waitFor(children(path));
    }

    /**
     * As {@link #watchData(String, Watcher)}, waiting for the reply on the calling thread.
     *
     * @throws InterruptedException if the thread is interrupted first (the request, and the watch, stay sent)
     */
    default Reply watchDataNow(String path, Watcher watcher) throws InterruptedException {
        return waitFor(watchData(path, watcher));
    }

    /** Waits for {@code reply} through {@link Parking}: what the synchronous calls do by default. */
    private static Reply waitFor(CompletableFuture<Reply> reply) throws InterruptedException {
        try {
            return Parking.get(reply);
        } catch (ExecutionException e) {
            // Replies are completed by callbacks that cannot throw: a failure here is a library bug.
            throw new AssertionError("a ZooKeeper callback failed", e.getCause());
        }
    }

    /** Lists a node's children and leaves {@code watcher} on them (none on a missing node). */
    CompletableFuture<Reply> watchChildren(String path, Watcher watcher);

    /** Reads a node's data and leaves {@code watcher} on it (none on a missing node): NodeStat or Failed. */
    CompletableFuture<Reply> watchData(String path, Watcher watcher);

    /** As {@link #watchData(String, Watcher)}, answering {@code callback} itself: no future. */
    void watchData(String path, Watcher watcher, AsyncCallback.DataCallback callback);

    /** Brings the server this session talks to up to date with the leader. */
    CompletableFuture<Reply> sync(String path);

    /** Reads a node's stat, with no watch: {@link Reply.NodeStat} or {@link Reply.Failed}. */
    CompletableFuture<Reply> exists(String path);

    /** Deletes a node (any version): {@link Reply.Done} or {@link Reply.Failed}. */
    CompletableFuture<Reply> delete(String path);

    /** Removes our watch from {@code path} on the server, then locally (see {@link ZooKeeperHandle#removeWatch}). */
    CompletableFuture<Reply> removeWatch(String path, Watcher watcher, boolean children);

    /**
     * Leaves a persistent recursive watch of {@code watcher} on {@code path} (ZooKeeper 3.6's {@code addWatch} in
     * {@code PERSISTENT_RECURSIVE} mode; the path need not exist): {@link Reply.Done} or {@link Reply.Failed}. The
     * watcher is told of every create, delete and data change at or below {@code path}, each before the reply of any
     * request of this session sent after the change, never of a child list's change, and the watch is never used up.
     * It outlives a reconnect of the session (ZooKeeper's client sets it again) but the events of the outage are lost,
     * and it ends with the session or a {@link #removeWatches removal}.
     */
    CompletableFuture<Reply> addWatch(String path, Watcher watcher);

    /**
     * Removes the persistent recursive watch of {@code watcher} on {@code path} from the server and then locally:
     * {@link Reply.Done}, or {@link Reply.Failed} (NOWATCHER if it had none there). ZooKeeper keeps one such watch per
     * session and path, whatever the watchers: its removal ends every persistent recursive watcher of the session on
     * the path ({@link ZooKeeperHandle#removeWatches}).
     */
    CompletableFuture<Reply> removeWatches(String path, Watcher watcher);
}
