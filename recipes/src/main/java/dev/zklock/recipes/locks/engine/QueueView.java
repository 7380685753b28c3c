package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.data.Stat;

/**
 * The children of one lock path as one session knows them from a persistent recursive watch on the path: one listing,
 * then every create and delete the watch tells of after the listing's reply. Answers a listing, and a data watch on a
 * child, with no request (see {@link ViewSession}). Safe for use by multiple threads: the state is guarded by this
 * object, and watchers are told outside the lock.
 *
 * <p>Cost: one addWatch per session and lock path, one listing per connection of the session (the first, and the resync
 * after each outage); then none.
 */
/*
 * Implementation notes.
 *
 * 1. Exact at every reply. ZooKeeper tells a session of a change before the reply of any request it applies later, and
 *    the addWatch is sent before the listing: an event before the listing's reply is of a change the listing holds (it
 *    is ignored), an event after it of a change the listing does not hold. So at the reply of any later request the
 *    view is what a listing would have said then (SimPersistentWatchTest, over the simulator's seeds).
 * 2. Stale from a disconnection to the next listing. Events of an outage are lost (the watch is set again on a
 *    reconnect of the session, nothing is replayed): at Disconnected the view stops answering, and only a listing
 *    sent after it (the outage count it was sent in is the count at its reply) seeds it again. A listing whose
 *    addWatch was not answered OK seeds nothing: a view with no watch would never change.
 * 3. Local watches vouch as ZooKeeper's do. A data watch answered here is told NodeDeleted (or NodeDataChanged) when an
 *    event says so; the events an outage lost are made up by the resync: on SyncConnected, a view with watches lists
 *    the path again, and each watched child the listing lacks is told NodeDeleted, as ZooKeeper's client, which sets
 *    its watches again on a reconnect, is told of a node deleted meanwhile. They are told last in the queue first: a
 *    waiter's own node before the node ahead of it, so the wake-up finds its voucher told already (Acquisition,
 *    note 7; the simulator's seed 2690 granted a cohort's leader on a node a stranger had deleted during the outage
 *    when the node ahead was told first).
 */
final class QueueView implements Watcher {
    private final SessionPort session;
    private final String path; // fixed for the namespace

    private final Set<String> children = new HashSet<>(); // guarded by this
    private final Map<String, List<Watcher>> watches = new HashMap<>(); // guarded by this: local data watches by child
    private boolean watchSent; // guarded by this: an addWatch sent on this session and not failed
    private boolean watchSet; // guarded by this: its reply said OK
    private boolean listed; // guarded by this: seeded by a listing since the last outage
    private int outages; // guarded by this: the Disconnected events heard

    QueueView(SessionPort session, String path) {
        this.session = session;
        this.path = path;
    }

    /** Tells whether the view answers listings and watches now (note 2). */
    synchronized boolean isFresh() {
        return listed;
    }

    /** The children now, in no order (the driver sorts them), as a listing's reply; or null if the view is stale. */
    synchronized Reply answerListing() {
        return listed ? new Reply.Children(List.copyOf(children)) : null;
    }

    /**
     * A data watch of {@code watcher} on child {@code name}: NodeStat (an empty stat) if it stands, then told of its
     * delete or data change; NONODE, and no watch, if it does not; null if the view is stale.
     */
    synchronized Reply watch(String name, Watcher watcher) {
        if (!listed) {
            return null;
        }
        if (!children.contains(name)) {
            return new Reply.Failed(Code.NONODE);
        }
        List<Watcher> set = watches.computeIfAbsent(name, n -> new ArrayList<>(1));
        if (set.stream().noneMatch(known -> known == watcher)) {
            set.add(watcher); // a watcher set twice on one node is told once, as ZooKeeper does
        }
        return new Reply.NodeStat(new Stat());
    }

    /** Removes a local data watch of {@code watcher} on child {@code name}; true if there was one. */
    synchronized boolean removeWatch(String name, Watcher watcher) {
        List<Watcher> set = watches.get(name);
        if (set == null || !set.removeIf(known -> known == watcher)) {
            return false;
        }
        if (set.isEmpty()) {
            watches.remove(name);
        }
        return true;
    }

    /** Sends the addWatch, once per session, then a listing that seeds the view; answers the listing's reply. */
    CompletableFuture<Reply> list() {
        int sentIn;
        boolean add;
        synchronized (this) {
            sentIn = outages;
            add = !watchSent;
            watchSent = true;
        }
        if (add) {
            session.addWatch(path, this).thenAccept(reply -> {
                synchronized (this) {
                    watchSet = reply.isOk();
                    watchSent = watchSet;
                }
            });
        }
        return session.children(path).thenApply(reply -> {
            seed(reply, sentIn);
            return reply;
        });
    }

    private void seed(Reply reply, int sentIn) {
        Map<String, List<Watcher>> gone = new HashMap<>();
        synchronized (this) {
            List<String> now = reply instanceof Reply.Children found
                    ? found.children()
                    : reply.code() == Code.NONODE ? List.of() : null;
            if (now == null || !watchSet || outages != sentIn) {
                return;
            }
            children.clear();
            children.addAll(now);
            listed = true;
            for (String name : List.copyOf(watches.keySet())) {
                if (!children.contains(name)) {
                    gone.put(name, watches.remove(name)); // deleted during an outage (note 3)
                }
            }
        }
        List<String> names = new ArrayList<>(NodeNames.sortBySequence(gone.keySet()));
        Collections.reverse(names); // our own node before the node ahead of it (note 3)
        for (String name : names) {
            tell(gone.get(name), EventType.NodeDeleted, ZKPaths.makePath(path, name));
        }
    }

    /** An event of the persistent watch, or of the connection, on ZooKeeper's event thread. */
    @Override
    public void process(WatchedEvent event) {
        if (event.getType() == EventType.None) {
            connection(event.getState());
            return;
        }
        String changed = event.getPath();
        if (changed == null || !path.equals(ZKPaths.getPathAndNode(changed).getPath())) {
            return; // the lock path itself (a container made or reaped), or deeper: no node of the queue
        }
        String name = ZKPaths.getNodeFromPath(changed);
        List<Watcher> told;
        synchronized (this) {
            if (event.getType() == EventType.NodeCreated) {
                if (listed) {
                    children.add(name);
                }
                return;
            }
            if (event.getType() == EventType.NodeDeleted && listed) {
                children.remove(name);
            }
            told = watches.remove(name);
        }
        tell(told, event.getType(), changed);
    }

    private void connection(KeeperState state) {
        boolean resync;
        synchronized (this) {
            if (state != KeeperState.SyncConnected) {
                listed = false;
                outages++;
                return;
            }
            resync = !listed && watchSet && !watches.isEmpty();
        }
        if (resync) {
            list();
        }
    }

    private void tell(List<Watcher> watchers, EventType type, String changed) {
        if (watchers == null) {
            return;
        }
        for (Watcher watcher : watchers) {
            watcher.process(new WatchedEvent(type, KeeperState.SyncConnected, changed));
        }
    }
}
