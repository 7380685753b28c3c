package dev.zklock.cli.bench;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Not a lock: the floor under every lock, as the bench measures it. Acquire is one create of a protected
 * {@code EPHEMERAL_SEQUENTIAL} node named as a lock node is, on the raw ZooKeeper handle, and release is one delete; no
 * listing, no watch, no retry. For one thread, uncontended; two requests per cycle. With {@code listing}, the create is
 * sent without waiting and a listing of the lock path right behind it, whose reply ends the acquire: the round trip of
 * a lock that lists its queue, with no lock code around it (three requests per cycle).
 */
final class RawFloorLock implements InterProcessLock {
    private final CuratorFramework client;
    private final String path;
    private final byte[] data;
    private final boolean listing;
    private String node;

    RawFloorLock(CuratorFramework client, String path, boolean listing) {
        this.client = client;
        this.path = path;
        this.data = "raw-floor".getBytes(StandardCharsets.UTF_8);
        this.listing = listing;
    }

    @Override
    public void acquire() throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        String prefix = "_c_" + UUID.randomUUID() + "-lock-";
        if (!listing) {
            node = zk.create(path + "/" + prefix, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
            return;
        }
        sendCreate(zk, path + "/" + prefix, data);
        node = zk.getChildren(path, false).stream()
                .filter(child -> child.startsWith(prefix))
                .map(child -> path + "/" + child)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the listing behind the create lacks " + prefix));
    }

    /** Sends the create of a sequential ephemeral node without waiting for its reply (a listing follows it). */
    static void sendCreate(ZooKeeper zk, String pathPrefix, byte[] data) {
        zk.create(
                pathPrefix,
                data,
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (rc, created, ctx, name) -> {},
                null);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        acquire();
        return true;
    }

    @Override
    public void release() throws Exception {
        client.getZookeeperClient().getZooKeeper().delete(node, -1);
        node = null;
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return node != null;
    }
}
