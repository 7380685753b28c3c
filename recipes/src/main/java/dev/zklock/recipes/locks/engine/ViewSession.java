package dev.zklock.recipes.locks.engine;

import java.util.HashMap;
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
 * kept by one persistent recursive watch, with no request while the view is fresh: the runners and the machine are the
 * same, only where these two answers come from changes. Every other request goes to the session as it is. A local
 * answer comes when the replies of every request sent before it on the session have come, so it says what a request
 * sent then would have said (ZooKeeper tells a session's watch events before later replies: {@link QueueView}, note 1);
 * a view gone stale (an outage) answers nothing, and the request goes to the server, whose listing seeds the view again.
 * Safe for use by multiple threads: the views and the order of sends are guarded by this object.
 *
 * <p>Cost: the first listing of a lock path on the session is an addWatch and a listing (one round trip); later
 * listings and data watches of the path cost no request; a removal of a local watch costs none.
 */
final class ViewSession implements SessionPort {
    private final SessionPort session;
    private final Map<String, QueueView> views = new HashMap<>(); // guarded by this: by lock path (fixed)
    private CompletableFuture<?> lastSent = CompletableFuture.completedFuture(null); // guarded by this

    ViewSession(SessionPort session) {
        this.session = session;
    }

    @Override
    public long sessionId() {
        return session.sessionId();
    }

    @Override
    public CompletableFuture<Reply> children(String path) {
        synchronized (this) {
            QueueView view = views.computeIfAbsent(path, p -> new QueueView(session, p));
            if (!view.isFresh()) {
                return sent(view.list());
            }
            return sent(answerLater(view::answerListing));
        }
    }

    @Override
    public CompletableFuture<Reply> watchData(String path, Watcher watcher) {
        synchronized (this) {
            QueueView view = freshViewOf(path);
            if (view == null) {
                return sent(session.watchData(path, watcher));
            }
            String name = ZKPaths.getNodeFromPath(path);
            return sent(answerLater(() -> view.watch(name, watcher)));
        }
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
        return sent(session.create(path, data, acl, mode, onReply));
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
    public synchronized CompletableFuture<Reply> ephemerals() {
        return sent(session.ephemerals());
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

    /** The fresh view of the lock path {@code nodePath} is a node of, or null. Guarded by this. */
    private QueueView freshViewOf(String nodePath) {
        QueueView view = views.get(ZKPaths.getPathAndNode(nodePath).getPath());
        return view != null && view.isFresh() ? view : null;
    }

    /**
     * The view's answer once every request sent before has its reply; CONNECTIONLOSS if the view went stale meanwhile
     * (an outage, which fails the requests on the way too). Guarded by this.
     */
    private CompletableFuture<Reply> answerLater(Supplier<Reply> answer) {
        return lastSent.handle((previous, failure) -> {
            Reply reply = answer.get();
            return reply != null ? reply : new Reply.Failed(Code.CONNECTIONLOSS);
        });
    }

    /** Keeps {@code reply} as the last request sent, which a later local answer waits for. Guarded by this. */
    private <T> CompletableFuture<T> sent(CompletableFuture<T> reply) {
        lastSent = reply;
        return reply;
    }
}
