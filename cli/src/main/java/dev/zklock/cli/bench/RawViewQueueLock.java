package dev.zklock.cli.bench;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Not a lock: the protocol floor of a queue view, on the raw ZooKeeper handle with no lock code around it, for the bench
 * rows that ask what a queue kept from one persistent recursive watch per client costs on this machine. Made, it sets
 * that watch on the lock path and seeds its queue with one listing (two requests, before any round counts); from then
 * on every create and delete under the path reaches it as an event, on every client that keeps one. Acquire sends the
 * create of a sequential node; its reply comes on ZooKeeper's event thread after every event of an earlier change, so
 * the queue then holds every node ranked before ours, and acquire waits until none is left. Release deletes the node.
 * Two requests per acquisition, no per-waiter watch, every change heard by every client: the view's protocol. No retry,
 * no reconnect, no fencing; {@link #close} removes the watch (one request). Used by one thread at a time; its queue is
 * guarded by its monitor and written on ZooKeeper's event thread.
 */
final class RawViewQueueLock implements InterProcessLock, AutoCloseable {
    private static final Comparator<String> BY_SEQUENCE = Comparator.comparing(
                    (String name) -> name.substring(name.length() - 10))
            .thenComparing(name -> name);

    private final ZooKeeper zk;
    private final String path;
    private final byte[] data = "raw-view-queue".getBytes(StandardCharsets.UTF_8);
    private final Watcher watcher = this::heard;
    private final TreeSet<String> queue = new TreeSet<>(BY_SEQUENCE); // guarded by this
    private String created; // guarded by this: our node's name once its create's reply came
    private KeeperException failed; // guarded by this: the create's failure
    private volatile String node; // ours while held, its full path

    /**
     * Sets the persistent recursive watch on {@code path} and seeds the queue with a listing sent behind it, whose reply
     * comes after every event of an earlier change; both on ZooKeeper's event thread, in order.
     *
     * @throws IllegalStateException if either request fails
     */
    RawViewQueueLock(CuratorFramework client, String path) {
        this.zk = handle(client);
        this.path = path;
        CountDownLatch seeded = new CountDownLatch(1);
        int[] code = {KeeperException.Code.OK.intValue()};
        zk.addWatch(path, watcher, AddWatchMode.PERSISTENT_RECURSIVE, (rc, watched, ctx) -> code[0] = rc, null);
        zk.getChildren(path, false, (rc, listed, ctx, children) -> seed(rc, children, code, seeded), null);
        try {
            if (!seeded.await(client.getZookeeperClient().getConnectionTimeoutMs(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the raw view queue on '" + path + "' had no listing in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the raw view queue on '" + path + "' was seeded", e);
        }
        if (code[0] != KeeperException.Code.OK.intValue()) {
            throw new IllegalStateException(
                    "the raw view queue could not watch and list '" + path + "'",
                    KeeperException.create(KeeperException.Code.get(code[0]), path));
        }
    }

    private static ZooKeeper handle(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle for the raw view queue", e);
        }
    }

    private void seed(int rc, List<String> children, int[] code, CountDownLatch seeded) {
        synchronized (this) {
            if (rc != KeeperException.Code.OK.intValue()) {
                code[0] = rc;
            } else {
                queue.addAll(children);
            }
        }
        seeded.countDown();
    }

    private void heard(WatchedEvent event) {
        String changed = event.getPath();
        if (changed == null || changed.length() <= path.length() + 1 || changed.indexOf('/', path.length() + 1) >= 0) {
            return; // the path itself, a connection state, or deeper down
        }
        String name = changed.substring(path.length() + 1);
        synchronized (this) {
            if (event.getType() == Watcher.Event.EventType.NodeCreated) {
                queue.add(name);
            } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                queue.remove(name);
                notifyAll();
            }
        }
    }

    private void createdAs(int rc, String name) {
        synchronized (this) {
            if (rc != KeeperException.Code.OK.intValue()) {
                failed = KeeperException.create(KeeperException.Code.get(rc), path);
            } else {
                created = name.substring(path.length() + 1);
                queue.add(created); // its own event came before this reply
            }
            notifyAll();
        }
    }

    @Override
    public void acquire() throws Exception {
        String prefix = path + "/_c_" + UUID.randomUUID() + "-lock-";
        zk.create(
                prefix,
                data,
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, sent, ctx, name) -> createdAs(rc, name),
                null);
        synchronized (this) {
            while (created == null && failed == null) {
                wait();
            }
            if (failed != null) {
                KeeperException cause = failed;
                failed = null;
                throw cause;
            }
            while (!queue.first().equals(created)) {
                wait();
            }
            node = path + "/" + created;
            created = null;
        }
    }

    /** Not supported: the bench's contenders on a raw view queue wait as long as it takes. */
    @Override
    public boolean acquire(long time, TimeUnit unit) {
        throw new UnsupportedOperationException("the raw view queue on '" + path + "' has no timed acquire");
    }

    @Override
    public void release() throws Exception {
        String held = node;
        node = null;
        zk.delete(held, -1);
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return node != null;
    }

    /** Removes the persistent recursive watch: one request. */
    @Override
    public void close() throws Exception {
        zk.removeWatches(path, watcher, Watcher.WatcherType.PersistentRecursive, true);
    }
}
