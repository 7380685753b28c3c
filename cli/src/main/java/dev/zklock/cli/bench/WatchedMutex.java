package dev.zklock.cli.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * The floor of the bench's row of heap per held lock ({@link HeldLocksScenario}): Curator's {@code InterProcessMutex},
 * and once it holds, one data watch on its held node, as a lock that learns of a stranger's delete of its node must
 * keep. Curator's hold plus exactly what ZooKeeper's client keeps for one data watch: the watch is set with one {@code
 * exists} on the raw ZooKeeper handle, with one no-op watcher shared by every lock, on Curator's own string of the
 * node's path, so that ZooKeeper's table of watches keeps no copy of the path. No field of its own: a lock object is
 * the size of an {@code InterProcessMutex}. The watch fires and is dropped when the release deletes the node. Safe for
 * use by multiple threads as {@code InterProcessMutex} is; {@link #watchHeldNode} is called by the holding thread.
 */
final class WatchedMutex extends InterProcessMutex {
    /** The one watcher of every watch: the floor counts what ZooKeeper keeps per watch, not a watcher per lock. */
    private static final Watcher IGNORED = event -> {};

    WatchedMutex(CuratorFramework client, String path) {
        super(client, path);
    }

    /**
     * Sets a data watch on the node the calling thread holds: one {@code exists} with a watcher, one round trip. A
     * second call on the same hold adds nothing to ZooKeeper's table (the same watcher on the same path).
     *
     * @throws IllegalStateException naming the lock's node if the calling thread holds none, or naming the node if it
     *     is gone (the session ended)
     */
    void watchHeldNode(ZooKeeper zooKeeper) throws KeeperException, InterruptedException {
        String node = getLockPath(); // Curator's own instance, kept by its hold
        if (node == null) {
            throw new IllegalStateException("'" + Thread.currentThread().getName() + "' holds no node of this mutex");
        }
        if (zooKeeper.exists(node, IGNORED) == null) {
            throw new IllegalStateException("the held node '" + node + "' is gone");
        }
    }
}
