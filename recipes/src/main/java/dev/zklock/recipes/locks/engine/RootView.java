package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;

/**
 * One persistent recursive watch of one session on a root path, and the {@link QueueView}s of the lock paths under it
 * that its events feed: a lone lock's root is its own path, a registry's is its base path (its keys' paths are the
 * base path's children). Hands each create and delete to the view of the path it is a child of, and each change of the
 * connection to every view. Safe for use by multiple threads: the watch's state is guarded by this object (taken after
 * a view's, never before); the views are added and dropped under the {@link ViewSession}'s lock and read by the event
 * thread from a concurrent map.
 *
 * <p>Cost: one addWatch per session and root, sent with the first listing of a path under it (and again after one that
 * failed); one multi read per reconnect that lists every path under it with local watches ({@link ViewSession#resync});
 * one removeWatches when its last view is dropped.
 */
final class RootView implements Watcher {
    private final ViewSession owner;
    private final String path; // fixed for the namespace
    // by lock path; changed under owner's lock; a lone lock's root has one view, a registry's as many as its keys
    private final Map<String, QueueView> views = new ConcurrentHashMap<>(2);

    private boolean watchSent; // guarded by this: an addWatch sent on this session and not failed
    private boolean watchSet; // guarded by this: its reply said OK
    private int outages; // guarded by this: the Disconnected events heard, and requests failed with the connection
    private boolean connected = true; // guarded by this: no Disconnected heard since the last SyncConnected
    private boolean detached; // guarded by this: dropped from its session; its events are no one's now

    RootView(ViewSession owner, String path) {
        this.owner = owner;
        this.path = path;
    }

    String path() {
        return path;
    }

    /** The view of lock path {@code lockPath} under this root, made if it has none. Under the owner's lock. */
    QueueView view(String lockPath) {
        return views.computeIfAbsent(lockPath, p -> new QueueView(this, p));
    }

    /** Forgets the view of {@code lockPath}; true if no view is left. Under the owner's lock. */
    boolean drop(String lockPath) {
        views.remove(lockPath);
        return views.isEmpty();
    }

    Collection<QueueView> views() {
        return views.values();
    }

    /**
     * Sends the root's addWatch if none is sent or set on the session, through {@code session}, right before a listing
     * of a path under it; returns the outage count the listing is sent in (QueueView, note 2). Under the owner's lock.
     */
    int beforeListing(SessionPort session) {
        int sentIn;
        synchronized (this) {
            sentIn = outages;
            if (watchSent) {
                return sentIn;
            }
            watchSent = true;
        }
        session.addWatch(path, this).thenAccept(reply -> {
            synchronized (this) {
                watchSet = reply.isOk();
                watchSent = watchSet;
            }
        });
        return sentIn;
    }

    /** Tells whether a listing sent in outage {@code sentIn} seeds a view now: the watch is set and no outage since. */
    synchronized boolean seeds(int sentIn) {
        return watchSet && !detached && outages == sentIn;
    }

    /** The outage count now, if a resync may list under this root (the watch set, still attached); else -1. */
    synchronized int resyncOutage() {
        return watchSet && !detached ? outages : -1;
    }

    /** Tells whether the watch was sent and may stand on the server (a removal is due when dropped). */
    synchronized boolean hasWatch() {
        return watchSent;
    }

    /** Dropped from its session: hears nothing more. */
    synchronized void detach() {
        detached = true;
    }

    private synchronized boolean isDetached() {
        return detached;
    }

    /** An event of the persistent watch, or of the connection, on ZooKeeper's event thread. */
    @Override
    public void process(WatchedEvent event) {
        if (isDetached()) {
            return;
        }
        if (event.getType() == EventType.None) {
            connection(event.getState());
            return;
        }
        String changed = event.getPath();
        if (changed == null || changed.equals("/")) {
            return;
        }
        ZKPaths.PathAndNode parent = ZKPaths.getPathAndNode(changed);
        QueueView view = views.get(parent.getPath());
        if (view != null) { // else the root itself, a key's parent made or reaped, or deeper: no node of a queue
            view.event(event.getType(), parent.getNode(), changed);
        }
    }

    private void connection(KeeperState state) {
        synchronized (this) {
            connected = state == KeeperState.SyncConnected;
        }
        if (state == KeeperState.SyncConnected) {
            owner.resync(this);
            return;
        }
        outage();
    }

    /** Tells whether the session is connected, as the watch last heard (SyncConnected, no Disconnected since). */
    synchronized boolean isConnected() {
        return connected;
    }

    /**
     * The connection dropped, or a request of the session failed with it before the client says so: every view under
     * the root is stale until a listing sent after now seeds it (QueueView, note 2).
     */
    void outage() {
        synchronized (this) {
            outages++;
        }
        for (QueueView view : views.values()) {
            view.stale();
        }
    }

    /** The views a resync lists: stale, with local watches (QueueView#needsResync). */
    List<QueueView> needingResync() {
        List<QueueView> stale = new ArrayList<>();
        for (QueueView view : views.values()) {
            if (view.needsResync()) {
                stale.add(view);
            }
        }
        return stale;
    }
}
