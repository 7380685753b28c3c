package dev.zklock.cli.inspect;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockNodeName;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * Reads a lock's queue from ZooKeeper: one listing of the lock path, then one data read for each lock node, in queue
 * order; for a semaphore's path (whose children are {@code locks} and {@code leases}), one listing of each of them too.
 * Optionally leaves a watch that fires when the queue changes: a child watch on the lock path (and on a semaphore's
 * two), or, when the path does not exist, an existence watch that fires when it is made. Confined to one thread.
 */
final class LockQueueReader {
    private final CuratorFramework client;
    private final String path;

    LockQueueReader(CuratorFramework client, String path) {
        this.client = client;
        this.path = path;
    }

    /**
     * Reads the queue now.
     *
     * @param watcher told once when the children of the path change (or the path appears), or null for no watch
     * @return the queue, or empty if the path does not exist
     * @throws NotALock if the path has children and none of them is a lock node
     * @throws Exception if ZooKeeper refuses a read (connection loss included, after Curator's retries)
     */
    Optional<LockQueueSnapshot> read(Watcher watcher) throws Exception {
        List<String> children;
        try {
            children = watcher == null
                    ? client.getChildren().forPath(path)
                    : client.getChildren().usingWatcher(watcher).forPath(path);
        } catch (KeeperException.NoNodeException e) {
            if (watcher != null && client.checkExists().usingWatcher(watcher).forPath(path) != null) {
                return read(watcher); // made between the two requests
            }
            return Optional.empty();
        }
        long now = System.currentTimeMillis();
        if (isSemaphore(children)) {
            List<LockQueueSnapshot.Read> leases = new ArrayList<>();
            List<LockQueueSnapshot.Read> mutex = new ArrayList<>();
            int others = readNodes(ZKPaths.makePath(path, LockQueueSnapshot.SEMAPHORE_LEASES), watcher, leases)
                    + readNodes(ZKPaths.makePath(path, LockQueueSnapshot.SEMAPHORE_LOCKS), watcher, mutex);
            return Optional.of(LockQueueSnapshot.ofSemaphore(path, leases, mutex, others, now));
        }
        List<LockQueueSnapshot.Read> nodes = new ArrayList<>();
        int others = readNodes(path, children, nodes);
        if (others > 0 && others == children.size()) {
            throw new NotALock(path, children);
        }
        return Optional.of(LockQueueSnapshot.of(path, nodes, others, now));
    }

    /** A semaphore's path has the children {@code leases} and {@code locks} (either may be missing), and no other. */
    private static boolean isSemaphore(List<String> children) {
        return !children.isEmpty()
                && children.stream()
                        .allMatch(child -> child.equals(LockQueueSnapshot.SEMAPHORE_LEASES)
                                || child.equals(LockQueueSnapshot.SEMAPHORE_LOCKS));
    }

    /** Lists {@code parent} (with a child watch if given) and reads its lock nodes into {@code into}; a missing one is empty. */
    private int readNodes(String parent, Watcher watcher, List<LockQueueSnapshot.Read> into) throws Exception {
        List<String> children;
        try {
            children = watcher == null
                    ? client.getChildren().forPath(parent)
                    : client.getChildren().usingWatcher(watcher).forPath(parent);
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
        return readNodes(parent, children, into);
    }

    /** Reads the lock nodes among {@code children} of {@code parent}, in queue order; returns how many others. */
    private int readNodes(String parent, List<String> children, List<LockQueueSnapshot.Read> into) throws Exception {
        int others = 0;
        for (String child : LockDriver.exclusive().sort(children)) {
            if (LockNodeName.parse(child).isEmpty()) {
                others++;
                continue;
            }
            Stat stat = new Stat();
            try {
                byte[] data = client.getData().storingStatIn(stat).forPath(ZKPaths.makePath(parent, child));
                into.add(new LockQueueSnapshot.Read(
                        child,
                        stat.getEphemeralOwner(),
                        stat.getCtime(),
                        data == null ? new byte[0] : data,
                        stat.getCzxid()));
            } catch (KeeperException.NoNodeException gone) {
                // released since the listing; the child watch, if any, has fired already
            }
        }
        return others;
    }

    /** The path has children, and none of them is a lock node: it is not a lock's path. */
    static final class NotALock extends Exception {
        private static final long serialVersionUID = 1L;

        NotALock(String path, List<String> children) {
            super("'" + path + "' holds no lock: its " + children.size()
                    + (children.size() == 1 ? " child is not a lock node (" : " children are not lock nodes (")
                    + String.join(", ", children.stream().sorted().limit(3).toList())
                    + (children.size() > 3 ? ", ..." : "")
                    + "); lock nodes are named [_c_<uuid>-]lock-<sequence>, __READ__<sequence> or __WRIT__<sequence>,"
                    + " and a semaphore's path has the children locks and leases");
        }
    }
}
