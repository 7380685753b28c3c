package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.Stat;

/**
 * The children of one lock path as one session knows them from the persistent recursive watch of its {@link RootView}:
 * one listing, then every create and delete the watch tells of after the listing's reply. Answers a listing, and a
 * data watch on a child, with no request (see {@link ViewSession}). Safe for use by multiple threads: the state is
 * guarded by this object (taken before its root's, never after), and watchers are told outside the lock.
 *
 * <p>Cost: no request of its own; its root sends them (one listing per path when the view is made or found stale at a
 * request, one multi read per root at a resync).
 */
/*
 * Implementation notes.
 *
 * 1. Exact at every reply. ZooKeeper tells a session of a change before the reply of any request it applies later, and
 *    the root's addWatch is sent before the first listing of any path under it: an event before the listing's reply
 *    is of a change the listing holds (it is ignored), an event after it of a change the listing does not hold. So at
 *    the reply of any later request the view is what a listing would have said then (SimPersistentWatchTest, over the
 *    simulator's seeds).
 * 2. Stale from a disconnection to the next listing. Events of an outage are lost (the watch is set again on a
 *    reconnect of the session, nothing is replayed): at Disconnected the view stops answering, and only a listing
 *    sent after it (the root's outage count it was sent in is the count at its reply) seeds it again. A listing whose
 *    root's addWatch was not answered OK seeds nothing: a view with no watch would never change.
 * 3. Local watches vouch as ZooKeeper's do. A data watch answered here is told NodeDeleted (or NodeDataChanged) when an
 *    event says so; the events an outage lost are made up by the resync (RootView): each watched child the listing
 *    lacks is told NodeDeleted, as ZooKeeper's client, which sets its watches again on a reconnect, is told of a node
 *    deleted meanwhile. They are told last in the queue first: a waiter's own node before the node ahead of it, so the
 *    wake-up finds its voucher told already (Acquisition, note 7; the simulator's seed 2690 granted a cohort's leader
 *    on a node a stranger had deleted during the outage when the node ahead was told first).
 * 4. Idle only when nothing can need it. A view is dropped (ViewSession, note 2) only with no local watch (no waiter on
 *    a node of the path and no hold vouched by it), no request on its way that it answers or that seeds it, and no use
 *    for the idle time. A request after the drop makes a new view, whose first listing seeds it: never an answer from
 *    a view that stopped hearing events.
 * 5. Small per held node. A held lock keeps one local watch here, its voucher: keyed by the very name string the
 *    children keep (not the copy a watch's path gives), and the watcher itself unless several watch one child (a
 *    list then). A hold costs a map node and no string of its own beside the name (heap per held lock, issue 35).
 */
final class QueueView {
    /** The maps' first capacity: most views hold a node or two (a registry's keys), a hot path's grow as they fill. */
    private static final int SMALL = 4;

    private final RootView root;
    private final String path; // fixed for the namespace

    // guarded by this: each child's name to itself, so that a watch keys on the name the view keeps (note 5)
    private final Map<String, String> children = new HashMap<>(SMALL);
    // guarded by this: local data watches by child, a Watcher, or a List of them when several watch one child (note 5)
    private final Map<String, Object> watches = new HashMap<>(SMALL);
    private boolean listed; // guarded by this: seeded by a listing since the last outage
    private int onTheWay; // guarded by this: listings and local answers sent and not answered yet (note 4)
    private long lastUse; // guarded by this: the timer's time of the last request answered or seeded here

    QueueView(RootView root, String path) {
        this.root = root;
        this.path = path;
    }

    RootView root() {
        return root;
    }

    String path() {
        return path;
    }

    /** Tells whether the view answers listings and watches now (note 2). */
    synchronized boolean isFresh() {
        return listed;
    }

    /** A request that this view answers, or whose reply seeds it, is on its way from {@code now} (note 4). */
    synchronized void sending(long now) {
        onTheWay++;
        lastUse = now;
    }

    /** The children now, in no order (the driver sorts them), as a listing's reply; or null if the view is stale. */
    synchronized Reply answerListing() {
        onTheWay--;
        if (!listed) {
            return null;
        }
        List<String> names = new ArrayList<>(children.size());
        children.forEach((name, same) -> names.add(name)); // no key set kept by the map for one call
        return new Reply.Children(names);
    }

    /**
     * A data watch of {@code watcher} on child {@code name}: NodeStat (an empty stat) if it stands, then told of its
     * delete or data change; NONODE, and no watch, if it does not; null if the view is stale.
     */
    synchronized Reply watch(String name, Watcher watcher) {
        onTheWay--;
        if (!listed) {
            return null;
        }
        String child = children.get(name);
        if (child == null) {
            return new Reply.Failed(Code.NONODE);
        }
        Object known = watches.get(child);
        if (known == null) {
            watches.put(child, watcher);
        } else if (!watchers(known)
                .contains(watcher)) { // a watcher set twice on one node is told once, as ZooKeeper does
            List<Watcher> several = new ArrayList<>(watchers(known));
            several.add(watcher);
            watches.put(child, several);
        }
        return new Reply.NodeStat(new Stat());
    }

    /** Removes a local data watch of {@code watcher} on child {@code name}; true if there was one. */
    synchronized boolean removeWatch(String name, Watcher watcher) {
        Object known = watches.get(name);
        if (known == null || !holds(known, watcher)) {
            return false;
        }
        List<Watcher> left = new ArrayList<>(watchers(known));
        left.removeIf(each -> each == watcher);
        if (left.isEmpty()) {
            watches.remove(name);
        } else {
            watches.put(name, left.size() == 1 ? left.get(0) : left);
        }
        return true;
    }

    /** Tells whether {@code watcher} itself (not an equal one) is among {@code known}, as ZooKeeper's client tells. */
    private static boolean holds(Object known, Watcher watcher) {
        return watchers(known).stream().anyMatch(each -> each == watcher);
    }

    /** The watchers of one child as {@link #watches} keeps them: a Watcher alone, or a List of several. */
    @SuppressWarnings("unchecked")
    private static List<Watcher> watchers(Object known) {
        return known instanceof Watcher one ? List.of(one) : (List<Watcher>) known;
    }

    /** Tells whether a resync must list the path: stale, with local watches the outage may have lost events of. */
    synchronized boolean needsResync() {
        return !listed && !watches.isEmpty();
    }

    /** Tells whether the view may be dropped at {@code now} (note 4). */
    synchronized boolean isIdle(long now, long idleNanos) {
        return onTheWay == 0 && watches.isEmpty() && now - lastUse >= idleNanos;
    }

    /** The connection dropped: the view answers nothing until a listing sent after it seeds it (note 2). */
    synchronized void stale() {
        listed = false;
    }

    /**
     * Seeds the view with the reply of a listing sent in the root's outage {@code sentIn} (a single listing or one
     * path's part of a resync's multi read), and tells the local watches on children it lacks NodeDeleted, last in the
     * queue first (note 3).
     */
    void seed(Reply reply, int sentIn) {
        Map<String, Object> gone = new HashMap<>();
        synchronized (this) {
            onTheWay--;
            List<String> now = reply instanceof Reply.Children found
                    ? found.children()
                    : reply.code() == Code.NONODE ? List.of() : null;
            if (now == null || !root.seeds(sentIn)) {
                return;
            }
            children.clear();
            for (String name : now) {
                children.put(name, name);
            }
            listed = true;
            watches.forEach((name, told) -> { // no key set kept by the map for a seed
                if (!children.containsKey(name)) {
                    gone.put(name, told); // deleted during an outage (note 3)
                }
            });
            gone.keySet().forEach(watches::remove);
        }
        List<String> names = new ArrayList<>(NodeNames.sortBySequence(gone.keySet()));
        Collections.reverse(names); // our own node before the node ahead of it (note 3)
        for (String name : names) {
            tell(gone.get(name), EventType.NodeDeleted, ZKPaths.makePath(path, name));
        }
    }

    /** An event of the root's watch on child {@code name} of this path, on ZooKeeper's event thread. */
    void event(EventType type, String name, String changed) {
        Object told;
        synchronized (this) {
            if (type == EventType.NodeCreated) {
                if (listed) {
                    children.put(name, name);
                }
                return;
            }
            if (type == EventType.NodeDeleted && listed) {
                children.remove(name);
            }
            told = watches.remove(name);
        }
        tell(told, type, changed);
    }

    private static void tell(Object told, EventType type, String changed) {
        if (told == null) {
            return;
        }
        for (Watcher watcher : watchers(told)) {
            watcher.process(new WatchedEvent(type, KeeperState.SyncConnected, changed));
        }
    }
}
