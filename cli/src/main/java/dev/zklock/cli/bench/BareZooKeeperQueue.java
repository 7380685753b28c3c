package dev.zklock.cli.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Not a lock library: the least a thread waiting in a herd-free ZooKeeper lock queue keeps, for the floor of the
 * bench's heap per waiting virtual thread. Each acquire creates an ephemeral sequential node named as long as a
 * protected node of Curator's layout ({@code _c_<36 characters>-lock-<sequence>}), sets one data watch on the node
 * whose sequence is one less (every node of the path is this object's, so that is the node ahead, and no listing is
 * needed), and parks once until it is deleted: a node name, a watched path, ZooKeeper's entry for the watch, and one
 * small watcher. Both requests are asynchronous, so the thread parks only there. Holds only in the bench's drain (each
 * thread takes it once, all on one path, with nothing else there); it has no timeout and ignores interrupts. Two
 * requests per acquire, one per release. Safe for use by multiple threads; ownership is per thread.
 */
final class BareZooKeeperQueue implements InterProcessLock {
    private static final String PREFIX = "_c_00000000-0000-4000-8000-000000000000-lock-";
    private static final int SEQUENCE_DIGITS = 10;

    private final CuratorFramework client;
    private final String path;
    private final ConcurrentHashMap<Thread, String> held = new ConcurrentHashMap<>(); // our node, by its holder

    BareZooKeeperQueue(CuratorFramework client, String path) {
        this.client = client;
        this.path = path;
    }

    @Override
    public void acquire() throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        Waiter waiter = new Waiter(Thread.currentThread());
        zk.create(
                ZKPaths.makePath(path, PREFIX),
                new byte[0],
                ZooDefs.Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL,
                (code, requested, context, name) -> waiter.created(zk, code, name),
                null);
        while (!waiter.holds()) {
            LockSupport.park(waiter);
        }
        if (waiter.failure != KeeperException.Code.OK) {
            throw KeeperException.create(waiter.failure, path);
        }
        held.put(Thread.currentThread(), waiter.node);
    }

    /** Not for the bench's drain, which waits as long as it takes: a floor has no deadline to keep. */
    @Override
    public boolean acquire(long time, TimeUnit unit) {
        throw new UnsupportedOperationException("a bare queue waits without a timeout; " + time + " " + unit);
    }

    @Override
    public void release() throws Exception {
        String node = held.remove(Thread.currentThread());
        if (node == null) {
            throw new IllegalMonitorStateException("not held by " + Thread.currentThread() + " at " + path);
        }
        client.getZookeeperClient().getZooKeeper().delete(node, -1);
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return !held.isEmpty();
    }

    /** One waiting thread: its node, and the watcher of the node ahead, which unparks it. */
    private static final class Waiter implements Watcher {
        private final Thread thread;
        private volatile String node;
        private volatile boolean holds;
        private volatile KeeperException.Code failure = KeeperException.Code.OK;

        Waiter(Thread thread) {
            this.thread = thread;
        }

        boolean holds() {
            return holds;
        }

        void created(ZooKeeper zk, int code, String name) {
            if (code != KeeperException.Code.OK.intValue()) {
                fail(KeeperException.Code.get(code));
                return;
            }
            node = name;
            int digits = name.length() - SEQUENCE_DIGITS;
            long ahead = Long.parseLong(name.substring(digits)) - 1;
            String watched = name.substring(0, digits) + String.format("%0" + SEQUENCE_DIGITS + "d", ahead);
            zk.getData(
                    watched,
                    this,
                    (watchCode, watchedPath, context, data, stat) -> {
                        if (watchCode == KeeperException.Code.NONODE.intValue()) {
                            grant(); // no node ahead: ours holds (a data watch is left only on a node that exists)
                        } else if (watchCode != KeeperException.Code.OK.intValue()) {
                            fail(KeeperException.Code.get(watchCode));
                        }
                    },
                    null);
        }

        @Override
        public void process(WatchedEvent event) {
            if (event.getType() == Event.EventType.NodeDeleted) {
                grant();
            }
        }

        private void fail(KeeperException.Code code) {
            failure = code;
            grant();
        }

        private void grant() {
            holds = true;
            LockSupport.unpark(thread);
        }
    }
}
