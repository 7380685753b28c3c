package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;

/**
 * A session whose listings of a lock path, and data watches on that path's nodes, are answered by a {@link QueueView}
 * fed by the persistent recursive watch of the path's {@link RootView}, with no request while the view is fresh: the
 * runners and the machine are the same, only where these two answers come from changes. Every other request goes to
 * the session as it is. A local answer comes when the replies of every request sent before it on the session have
 * come, so it says what a request sent then would have said (ZooKeeper tells a session's watch events before later
 * replies: {@link QueueView}, note 1); a view gone stale (an outage) answers nothing, and the request goes to the
 * server, whose listing seeds the view again. Safe for use by multiple threads: the roots, the views and the order of
 * sends are guarded by this object (taken before a view's and a root's).
 *
 * <p>Cost: the first listing of a lock path on the session is a listing, and an addWatch before it if its root has
 * none yet (one round trip); later listings and data watches of the path cost no request; a removal of a local watch
 * costs none. After a reconnect, one multi read per root lists every path of the root with local watches
 * ({@link #resync}). A view idle for the idle time is dropped, and a root with no view left removes its watch (one
 * request): {@link #dropIdle}.
 */
/*
 * Implementation notes.
 *
 * 1. Roots. A lock path's root is its parent if the parent is a root the client's ViewPort was told of (a registry's
 *    base path), else the path itself; a path keeps the root its view was made under until the view is dropped.
 * 2. Idle drop. The client's timer asks dropIdle now and then (ViewPort): every view idle as QueueView note 4 says is
 *    forgotten, and a root left with no view is detached (its events go nowhere) and removes its watch. All under this
 *    lock, as every lookup of a view and every send is, so a request either finds the view (not idle: it is in use
 *    from then on) or makes a new view, and under a dropped root a new root, whose addWatch is sent after the removal
 *    on the same session (ZooKeeper applies them in that order). A removal that failed (the connection) is sent again
 *    at the next drop while no new root stands on the path: ZooKeeper removes a session's watches by path, so the
 *    removal of an old root would take a new root's too.
 * 3. A failed request is news of an outage. ZooKeeper's client fails the requests on their way when its connection
 *    drops, and only then tells the watchers Disconnected: a local answer that waited for such a request, judged on
 *    the view before the Disconnected comes, would say what the view held before events the outage lost. So a local
 *    answer whose last request before it failed with the connection is CONNECTIONLOSS, and every view is stale from
 *    then, as at Disconnected (ViewOutageTest: the old view's answer before). The partition rig (seed 111) stalled a
 *    queue for 65 s on what this most likely allowed: a create's reply lost as the ensemble's leader was killed, then
 *    a recovery (a sync and a listing) whose sync failed, and a listing answered from a view seeded without the node:
 *    the create was made again under the same protected prefix, and the first node stood at the head of the queue,
 *    its owner waiting behind it, until the session ended.
 * 4. A resync outdated by such a failure is sent again. A request sent as the connection dropped may fail only once
 *    the client has connected again (it waited in the client's queue): its outage comes after the SyncConnected whose
 *    resync is on its way, and that resync's reply no longer seeds its views (QueueView, note 2). While the root is
 *    connected and the reply itself came, the root resyncs again; nothing else would (no SyncConnected is coming), and
 *    a waiter whose local watch was on a node deleted during the outage was never told (the simulator's seed 24,175
 *    with views: a waiter on a multi-lock's node, deleted while its client was cut off, waited for ever).
 */
final class ViewSession implements SessionPort {
    private final SessionPort session;
    private final ViewPort client;
    private final Map<String, RootView> roots = new HashMap<>(); // guarded by this: by root path
    private final Map<String, QueueView> views = new HashMap<>(); // guarded by this: by lock path
    private final Map<String, RootView> unremoved = new HashMap<>(); // guarded by this: dropped, removal failed
    // guarded by this: the reply of the last request sent, which a local answer waits for and reads (note 3)
    private CompletableFuture<?> lastSent = CompletableFuture.completedFuture(null);

    ViewSession(SessionPort session, ViewPort client) {
        this.session = session;
        this.client = client;
    }

    @Override
    public long sessionId() {
        return session.sessionId();
    }

    @Override
    public CompletableFuture<Reply> children(String path) {
        synchronized (this) {
            QueueView view = viewOf(path);
            view.sending(client.now());
            if (!view.isFresh()) {
                int sentIn = view.root().beforeListing(session);
                return sent(session.children(path).thenApply(reply -> {
                    view.seed(reply, sentIn);
                    return reply;
                }));
            }
            return sent(answerLater(view::answerListing));
        }
    }

    @Override
    public CompletableFuture<Reply> watchData(String path, Watcher watcher) {
        synchronized (this) {
            QueueView view = views.get(ZKPaths.getPathAndNode(path).getPath());
            if (view == null || !view.isFresh()) {
                return sent(session.watchData(path, watcher));
            }
            view.sending(client.now());
            String name = ZKPaths.getNodeFromPath(path);
            return sent(answerLater(() -> view.watch(name, watcher)));
        }
    }

    /**
     * Lists again, in one multi read, every path under {@code root} whose view needs it (QueueView#needsResync), and
     * seeds each view with its part of the reply: one request per root after a reconnect, on ZooKeeper's event thread.
     * Until the reply, those views are stale and answer nothing, so nothing is granted from them.
     */
    void resync(RootView root) {
        synchronized (this) {
            int sentIn = root.resyncOutage();
            List<QueueView> stale = sentIn < 0 ? List.of() : root.needingResync();
            if (stale.isEmpty()) {
                return;
            }
            List<String> paths = new ArrayList<>(stale.size());
            for (QueueView view : stale) {
                view.sending(client.now());
                paths.add(view.path());
            }
            sent(session.childrenOfAll(paths).thenAccept(replies -> {
                for (int i = 0; i < stale.size(); i++) {
                    stale.get(i).seed(replies.get(i), sentIn);
                }
                if (!root.seeds(sentIn) && !lostConnection(replies) && root.isConnected()) {
                    resync(root); // an outage told since by a request that failed with the connection before (note 4)
                }
            }));
        }
    }

    /**
     * Drops every view idle at {@code now} for {@code idleNanos} and removes the watch of every root left with no view
     * (note 2); returns whether anything is left to look at later (views, or removals to send again).
     */
    synchronized boolean dropIdle(long now, long idleNanos) {
        for (Iterator<QueueView> it = views.values().iterator(); it.hasNext(); ) {
            QueueView view = it.next();
            if (view.isIdle(now, idleNanos)) {
                it.remove();
                RootView root = view.root();
                if (root.drop(view.path())) {
                    roots.remove(root.path());
                    root.detach();
                    removeWatch(root);
                }
            }
        }
        for (RootView root : List.copyOf(unremoved.values())) {
            unremoved.remove(root.path());
            if (!roots.containsKey(root.path())) {
                removeWatch(root);
            }
        }
        return !views.isEmpty() || !unremoved.isEmpty();
    }

    /** Tells whether the session keeps any view or root now: for tests and monitoring. */
    synchronized int roots() {
        return roots.size();
    }

    /** Removes the persistent watch of a dropped root, if it may stand (note 2). Guarded by this. */
    private void removeWatch(RootView root) {
        if (!root.hasWatch()) {
            return;
        }
        sent(session.removeWatches(root.path(), root)).thenAccept(reply -> {
            if (!reply.isOk() && reply.code() != Code.NOWATCHER) {
                synchronized (this) {
                    unremoved.put(root.path(), root);
                }
            }
        });
    }

    /** The view of lock path {@code path}, made under its root if it has none (note 1). Guarded by this. */
    private QueueView viewOf(String path) {
        QueueView known = views.get(path);
        if (known != null) {
            return known;
        }
        String parent = ZKPaths.getPathAndNode(path).getPath();
        String rootPath = client.isRoot(parent) ? parent : path;
        QueueView made =
                roots.computeIfAbsent(rootPath, p -> new RootView(this, p)).view(path);
        views.put(path, made);
        return made;
    }

    @Override
    public void watchData(String path, Watcher watcher, AsyncCallback.DataCallback callback) {
        watchData(path, watcher)
                .thenAccept(reply -> callback.processResult(
                        reply.code().intValue(),
                        path,
                        null,
                        null,
                        reply instanceof Reply.NodeStat found ? found.stat() : null));
    }

    @Override
    public CompletableFuture<Reply> removeWatch(String path, Watcher watcher, boolean children) {
        QueueView view;
        synchronized (this) {
            view = children ? null : views.get(ZKPaths.getPathAndNode(path).getPath());
        }
        if (view != null && view.removeWatch(ZKPaths.getNodeFromPath(path), watcher)) {
            return CompletableFuture.completedFuture(new Reply.Done());
        }
        synchronized (this) {
            return sent(session.removeWatch(path, watcher, children));
        }
    }

    @Override
    public synchronized <T> CompletableFuture<T> create(
            String path, byte[] data, List<ACL> acl, CreateMode mode, Function<Reply, T> onReply) {
        CompletableFuture<Reply> raw = new CompletableFuture<>(); // the reply itself, which onReply turns into a T
        CompletableFuture<T> reply = session.create(path, data, acl, mode, answered -> {
            raw.complete(answered);
            return onReply.apply(answered);
        });
        reply.whenComplete((value, failure) -> {
            if (failure != null) {
                raw.completeExceptionally(failure);
            }
        });
        lastSent = raw;
        return reply;
    }

    @Override
    public synchronized CompletableFuture<Reply.Transaction> multi(List<Op> ops) {
        return sent(session.multi(ops));
    }

    @Override
    public synchronized CompletableFuture<List<Reply>> childrenOfAll(List<String> paths) {
        return sent(session.childrenOfAll(paths));
    }

    @Override
    public synchronized CompletableFuture<Reply> watchChildren(String path, Watcher watcher) {
        return sent(session.watchChildren(path, watcher));
    }

    @Override
    public synchronized CompletableFuture<Reply> sync(String path) {
        return sent(session.sync(path));
    }

    @Override
    public synchronized CompletableFuture<Reply> exists(String path) {
        return sent(session.exists(path));
    }

    @Override
    public synchronized CompletableFuture<Reply> delete(String path) {
        return sent(session.delete(path));
    }

    @Override
    public synchronized CompletableFuture<Reply> addWatch(String path, Watcher watcher) {
        return sent(session.addWatch(path, watcher));
    }

    @Override
    public synchronized CompletableFuture<Reply> removeWatches(String path, Watcher watcher) {
        return sent(session.removeWatches(path, watcher));
    }

    /**
     * The view's answer once every request sent before has its reply; CONNECTIONLOSS if the view went stale meanwhile
     * (an outage, which fails the requests on the way too), or if the last of those failed with the connection (note
     * 3). Guarded by this.
     */
    private CompletableFuture<Reply> answerLater(Supplier<Reply> answer) {
        return lastSent.handle((previous, failure) -> {
            if (failure != null || lostConnection(previous)) {
                outage();
                return new Reply.Failed(Code.CONNECTIONLOSS);
            }
            Reply reply = answer.get();
            return reply != null ? reply : new Reply.Failed(Code.CONNECTIONLOSS);
        });
    }

    /** A request failed with the connection before the client said it dropped: every view is stale (note 3). */
    private void outage() {
        List<RootView> all;
        synchronized (this) {
            all = List.copyOf(roots.values());
        }
        all.forEach(RootView::outage);
    }

    /** Keeps {@code reply} as the last request sent, which a later local answer waits for. Guarded by this. */
    private <T> CompletableFuture<T> sent(CompletableFuture<T> reply) {
        lastSent = reply;
        return reply;
    }

    /** Tells whether a request's reply says the connection or the session was lost on its way. */
    private static boolean lostConnection(Object answered) {
        if (answered instanceof Reply reply) {
            return reply.isRetryable();
        }
        return answered instanceof List<?> replies
                && replies.stream().anyMatch(part -> part instanceof Reply reply && reply.isRetryable());
    }
}
