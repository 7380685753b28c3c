package dev.zklock.recipes.test.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * ZooKeeper as a lock sees it, in memory: a tree of persistent, ephemeral and sequential nodes with creation zxids, the
 * live sessions and the ephemeral nodes each owns, one-shot data and child watches, and persistent recursive watches
 * (ZooKeeper 3.6's {@code addWatch} in {@code PERSISTENT_RECURSIVE} mode: told of every create, delete and data change
 * at or below their path, never used up, dropped with their session or by a removal). Every operation is applied at
 * once, in the order the simulation calls it (one server: a single total order, as ZooKeeper's leader gives).
 * Notifications are handed to the watch's deliverer, which the client's connection orders with its replies. Not
 * thread-safe: one simulation runs on one thread.
 */
final class SimServer {
    /** A node of the tree. */
    static final class Node {
        final String path;
        final long czxid;
        final long owner; // the ephemeral owner's session; 0 for a persistent node
        final Map<String, Node> children = new LinkedHashMap<>(); // creation order: names carry random ids
        int nextSequence;
        byte[] data = new byte[0];

        Node(String path, long czxid, long owner) {
            this.path = path;
            this.czxid = czxid;
            this.owner = owner;
        }
    }

    /** The reply to one operation: a code and, where it has one, a name, a zxid, an owner, children. */
    record Result(Code code, String name, long czxid, long owner, List<String> children) {
        static Result of(Code code) {
            return new Result(code, null, 0, 0, List.of());
        }

        boolean ok() {
            return code == Code.OK;
        }
    }

    /** One registered watch: the session that set it, and how to deliver its event. */
    record Watch(long session, Object watcher, BiConsumer<String, EventType> deliver) {}

    private final Map<String, Node> nodes = new HashMap<>();
    private final Set<Long> live = new HashSet<>();
    private final Map<String, List<Watch>> dataWatches = new HashMap<>();
    private final Map<String, List<Watch>> childWatches = new HashMap<>();
    private final Map<String, List<Watch>> recursiveWatches = new HashMap<>(); // persistent: never removed by a firing
    private long zxid;
    private long nextSession = 0x1000L;

    SimServer() {
        nodes.put("/", new Node("/", 0, 0));
    }

    long openSession() {
        long session = ++nextSession;
        live.add(session);
        return session;
    }

    boolean isLive(long session) {
        return live.contains(session);
    }

    /** Ends a session (expiry or close): its ephemeral nodes go, firing watches, and its watches are dropped. */
    void endSession(long session) {
        if (!live.remove(session)) {
            return;
        }
        for (String path : ephemerals(session)) {
            delete(path);
        }
        dropWatches(session, dataWatches);
        dropWatches(session, childWatches);
        dropWatches(session, recursiveWatches);
    }

    /** Makes a persistent path and its parents; for the scenario's lock paths. */
    void makePath(String path) {
        if (nodes.containsKey(path)) {
            return;
        }
        makePath(parentOf(path));
        Node node = new Node(path, ++zxid, 0);
        nodes.put(path, node);
        nodes.get(parentOf(path)).children.put(nameOf(path), node);
    }

    /** Creates {@code parent/name} (plus a sequence for a sequential node), owned by {@code session} if ephemeral. */
    Result create(long session, String parent, String name, boolean sequential, boolean ephemeral) {
        if (!live.contains(session)) {
            return Result.of(Code.SESSIONEXPIRED);
        }
        Node up = nodes.get(parent);
        if (up == null) {
            return Result.of(Code.NONODE);
        }
        String child = sequential ? name + String.format("%010d", up.nextSequence) : name;
        String path = parent.equals("/") ? "/" + child : parent + "/" + child;
        if (nodes.containsKey(path)) {
            return Result.of(Code.NODEEXISTS);
        }
        up.nextSequence++; // the parent's child version: every child made bumps it, sequential or not, as ZooKeeper's
        Node node = new Node(path, ++zxid, ephemeral ? session : 0);
        nodes.put(path, node);
        up.children.put(child, node);
        fire(childWatches, parent, EventType.NodeChildrenChanged);
        fireRecursive(path, EventType.NodeCreated);
        return new Result(Code.OK, child, node.czxid, node.owner, List.of());
    }

    /** Creates several nodes at once, or none (a transaction). */
    List<Result> createAll(long session, List<String> parents, List<String> names, boolean sequential) {
        for (String parent : parents) {
            if (!nodes.containsKey(parent)) {
                return List.of(Result.of(Code.NONODE));
            }
        }
        if (!live.contains(session)) {
            return List.of(Result.of(Code.SESSIONEXPIRED));
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < parents.size(); i++) {
            results.add(create(session, parents.get(i), names.get(i), sequential, true));
        }
        return results;
    }

    Result delete(String path) {
        Node node = nodes.get(path);
        if (node == null) {
            return Result.of(Code.NONODE);
        }
        if (!node.children.isEmpty()) {
            return Result.of(Code.NOTEMPTY);
        }
        nodes.remove(path);
        String parent = parentOf(path);
        nodes.get(parent).children.remove(nameOf(path));
        fire(dataWatches, path, EventType.NodeDeleted);
        fire(childWatches, path, EventType.NodeDeleted);
        fire(childWatches, parent, EventType.NodeChildrenChanged);
        fireRecursive(path, EventType.NodeDeleted);
        return Result.of(Code.OK);
    }

    Result setData(String path, byte[] data) {
        Node node = nodes.get(path);
        if (node == null) {
            return Result.of(Code.NONODE);
        }
        node.data = data.clone();
        ++zxid;
        fire(dataWatches, path, EventType.NodeDataChanged);
        fireRecursive(path, EventType.NodeDataChanged);
        return Result.of(Code.OK);
    }

    /** Lists a node's children, leaving {@code watch} on them if not null (none on a missing node). */
    Result children(String path, Watch watch) {
        Node node = nodes.get(path);
        if (node == null) {
            return Result.of(Code.NONODE);
        }
        if (watch != null) {
            childWatches.computeIfAbsent(path, p -> new ArrayList<>()).add(watch);
        }
        return new Result(Code.OK, null, node.czxid, node.owner, List.copyOf(node.children.keySet()));
    }

    /** Reads a node, leaving {@code watch} on it if not null and the node exists (a data read, not exists). */
    Result data(String path, Watch watch) {
        Node node = nodes.get(path);
        if (node == null) {
            return Result.of(Code.NONODE);
        }
        if (watch != null) {
            dataWatches.computeIfAbsent(path, p -> new ArrayList<>()).add(watch);
        }
        return new Result(Code.OK, null, node.czxid, node.owner, List.of());
    }

    /**
     * Leaves a persistent recursive watch of {@code watch}'s watcher on {@code path}, which need not exist (as
     * ZooKeeper's {@code addWatch}); a watcher that has one there already keeps one. Fails only on an ended session.
     */
    Result addRecursiveWatch(String path, Watch watch) {
        if (!live.contains(watch.session())) {
            return Result.of(Code.SESSIONEXPIRED);
        }
        List<Watch> watches = recursiveWatches.computeIfAbsent(path, p -> new ArrayList<>());
        watches.removeIf(set -> set.watcher() == watch.watcher() && set.session() == watch.session());
        watches.add(watch);
        return Result.of(Code.OK);
    }

    /**
     * Removes every watch of {@code watcher} from {@code path}, of any kind, persistent ones included (ZooKeeper's
     * {@code removeWatches} with {@code WatcherType.Any}); true if there was one.
     */
    boolean removeAllWatches(String path, Object watcher) {
        boolean removed = false;
        for (Map<String, List<Watch>> watches : List.of(dataWatches, childWatches, recursiveWatches)) {
            List<Watch> set = watches.get(path);
            if (set != null && set.removeIf(watch -> watch.watcher() == watcher)) {
                removed = true;
                if (set.isEmpty()) {
                    watches.remove(path);
                }
            }
        }
        return removed;
    }

    /** Removes a watch of {@code watcher} from {@code path}; true if there was one. */
    boolean removeWatch(String path, Object watcher, boolean children) {
        List<Watch> watches = (children ? childWatches : dataWatches).get(path);
        return watches != null && watches.removeIf(watch -> watch.watcher() == watcher);
    }

    /** The full paths of the ephemeral nodes {@code session} owns, in creation order (names carry random ids). */
    List<String> ephemerals(long session) {
        List<Node> owned = new ArrayList<>();
        for (Node node : nodes.values()) {
            if (node.owner == session) {
                owned.add(node);
            }
        }
        owned.sort((a, b) -> Long.compare(a.czxid, b.czxid));
        return owned.stream().map(node -> node.path).toList();
    }

    /** The node at {@code path}, or null. */
    Node node(String path) {
        return nodes.get(path);
    }

    /** The children of {@code path}, with their nodes, in creation order; empty if it does not exist. */
    Map<String, Node> childrenOf(String path) {
        Node node = nodes.get(path);
        return node == null ? Map.of() : node.children;
    }

    /** Tells whether any watch is registered on {@code path}; for the end-of-run checks. */
    int watchCount(long session) {
        int count = 0;
        for (List<Watch> watches : dataWatches.values()) {
            count += (int)
                    watches.stream().filter(watch -> watch.session() == session).count();
        }
        for (List<Watch> watches : childWatches.values()) {
            count += (int)
                    watches.stream().filter(watch -> watch.session() == session).count();
        }
        for (List<Watch> watches : recursiveWatches.values()) {
            count += (int)
                    watches.stream().filter(watch -> watch.session() == session).count();
        }
        return count;
    }

    /**
     * Tells the persistent recursive watches at {@code path} and at each of its ancestors of {@code type} on {@code
     * path}, each watcher once; they stay set. ZooKeeper sends them no NodeChildrenChanged: a child's own event says it.
     */
    private void fireRecursive(String path, EventType type) {
        if (recursiveWatches.isEmpty()) {
            return;
        }
        Set<Object> told = new HashSet<>();
        for (String at = path; ; at = parentOf(at)) {
            for (Watch watch : recursiveWatches.getOrDefault(at, List.of())) {
                if (told.add(watch.watcher())) {
                    watch.deliver().accept(path, type);
                }
            }
            if (at.equals("/")) {
                return;
            }
        }
    }

    private void fire(Map<String, List<Watch>> watches, String path, EventType type) {
        List<Watch> set = watches.remove(path);
        if (set == null) {
            return;
        }
        Set<Object> told = new HashSet<>(); // a watcher object set twice on one path is told once, as ZooKeeper does
        for (Watch watch : set) {
            if (told.add(watch.watcher())) {
                watch.deliver().accept(path, type);
            }
        }
    }

    private static void dropWatches(long session, Map<String, List<Watch>> watches) {
        for (Iterator<List<Watch>> it = watches.values().iterator(); it.hasNext(); ) {
            List<Watch> set = it.next();
            set.removeIf(watch -> watch.session() == session);
            if (set.isEmpty()) {
                it.remove();
            }
        }
    }

    static String parentOf(String path) {
        int slash = path.lastIndexOf('/');
        return slash == 0 ? "/" : path.substring(0, slash);
    }

    static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
