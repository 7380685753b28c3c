package dev.zklock.cli.bench;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Not a lock: the protocol floor of a lock queue, on the raw ZooKeeper handle with no lock code around it, for the bench
 * rows that ask what the protocol itself costs. Acquire sends the create of a sequential node with the listing right
 * behind it; if nodes rank ahead, it watches the one just ahead (a data read with a watch) and, when that one goes, holds
 * at once if it was the only one ahead, else lists again. Release deletes the node. With {@code keepIdle}, release keeps
 * the node and sets a child watch on the path instead; the first child event (another client queued) deletes it, as a
 * cached node of a cohort is let go, and an acquire while it is still kept takes it with no request. No retry, no
 * recovery, no fencing. Used by one thread at a time; the kept node is handed between that thread and ZooKeeper's event
 * thread atomically.
 */
final class RawQueueLock implements InterProcessLock {
    private static final Comparator<String> BY_SEQUENCE =
            Comparator.comparing(name -> name.substring(name.length() - 10));

    private final CuratorFramework client;
    private final String path;
    private final boolean keepIdle;
    private final byte[] data = "raw-queue".getBytes(StandardCharsets.UTF_8);
    private final AtomicReference<String> kept = new AtomicReference<>(); // our idle node, until another client queues
    private volatile String node; // ours while held

    RawQueueLock(CuratorFramework client, String path, boolean keepIdle) {
        this.client = client;
        this.path = path;
        this.keepIdle = keepIdle;
    }

    @Override
    public void acquire() throws Exception {
        acquire(Long.MAX_VALUE / 2, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        String idle = kept.getAndSet(null);
        if (idle != null) {
            node = idle;
            return true;
        }
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        long deadline = System.nanoTime() + unit.toNanos(time);
        String prefix = "_c_" + UUID.randomUUID() + "-lock-";
        RawFloorLock.sendCreate(zk, path + "/" + prefix, data);
        while (true) {
            List<String> children = zk.getChildren(path, false);
            children.sort(BY_SEQUENCE);
            int ours = indexOf(children, prefix);
            node = path + "/" + children.get(ours);
            if (ours == 0) {
                return true;
            }
            CountDownLatch gone = new CountDownLatch(1);
            Stat ahead = zk.exists(path + "/" + children.get(ours - 1), event -> gone.countDown());
            if (ahead != null && !gone.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                zk.delete(node, -1);
                node = null;
                return false;
            }
            if (ahead != null && ours == 1) {
                return true; // the only node ahead went: ours is first, with no listing
            }
        }
    }

    private static int indexOf(List<String> children, String prefix) {
        for (int i = 0; i < children.size(); i++) {
            if (children.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new IllegalStateException("the listing behind the create lacks " + prefix);
    }

    @Override
    public void release() throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        String mine = node;
        node = null;
        if (!keepIdle) {
            zk.delete(mine, -1);
            return;
        }
        kept.set(mine);
        zk.getChildren(path, event -> {
            if (kept.compareAndSet(mine, null)) {
                zk.delete(mine, -1, (rc, deleted, ctx) -> {}, null);
            }
        });
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return node != null;
    }
}
