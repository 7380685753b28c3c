package dev.zklock.recipes.test;

import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/** Which ZooKeeper session owns what, as far as a client can tell; every method is quiet about connection trouble. */
final class Sessions {
    private Sessions() {}

    /** Returns the id of the client's current session, or 0 if it has none now. No ZooKeeper request. */
    static long current(CuratorFramework client) {
        try {
            return client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception noHandle) {
            return 0;
        }
    }

    /** Returns the address the client is connected to now, if it is connected. No ZooKeeper request. */
    static Optional<InetSocketAddress> remoteAddress(CuratorFramework client) {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            // ZooKeeper keeps the remote address for tests only; curator-test's TestingCluster reads it the same way.
            Method remote = ZooKeeper.class.getDeclaredMethod("testableRemoteSocketAddress");
            remote.setAccessible(true);
            return Optional.ofNullable((InetSocketAddress) remote.invoke(zk));
        } catch (Exception noHandle) {
            return Optional.empty();
        }
    }

    /** Returns the stat of {@code path}, or null if it does not exist or cannot be read now. One request. */
    static Stat statQuietly(CuratorFramework client, String path) throws InterruptedException {
        try {
            return client.checkExists().forPath(path);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception connectionTrouble) {
            return null;
        }
    }

    /**
     * Returns the session that owns the child of {@code lockPath} created at {@code creationZxid}, or empty if it is no
     * longer there or cannot be read now. One listing and one request per child.
     */
    static OptionalLong ownerOf(CuratorFramework client, String lockPath, long creationZxid)
            throws InterruptedException {
        List<String> children;
        try {
            children = client.getChildren().forPath(lockPath);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception goneOrUnreachable) {
            return OptionalLong.empty();
        }
        for (String child : children) {
            Stat stat = statQuietly(client, ZKPaths.makePath(lockPath, child));
            if (stat != null && stat.getCzxid() == creationZxid) {
                return OptionalLong.of(stat.getEphemeralOwner());
            }
        }
        return OptionalLong.empty();
    }
}
