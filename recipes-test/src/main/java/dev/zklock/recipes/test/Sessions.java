package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import java.util.List;
import java.util.OptionalLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
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
     * Returns the session that owns the child of {@code lockPath} whose hold has fencing {@code token}, or
     * empty if it is no longer there or cannot be read now. One listing and one request per child.
     */
    static OptionalLong ownerOf(CuratorFramework client, String lockPath, long token) throws InterruptedException {
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
            if (stat != null && stat.getCzxid() == FencingToken.creationZxid(token)) {
                return OptionalLong.of(stat.getEphemeralOwner());
            }
        }
        return OptionalLong.empty();
    }
}
