package dev.zklock.recipes.test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The lock nodes still under some lock paths, each described with its owner's session, for
 * {@link SafetyMonitor#checkNoNodesLeft}. Stateless; one listing per path and one stat per node.
 */
final class LockNodesLeft {
    private LockNodesLeft() {}

    /** Returns the nodes under each path that has any, described. */
    static Map<String, List<String>> under(CuratorFramework observer, Collection<String> lockPaths)
            throws InterruptedException {
        Map<String, List<String>> left = new HashMap<>();
        try {
            for (String lockPath : lockPaths) {
                List<String> described = new ArrayList<>();
                for (String child : childrenOf(observer, lockPath)) {
                    Stat stat = observer.checkExists().forPath(ZKPaths.makePath(lockPath, child));
                    if (stat != null) {
                        described.add(child + " (session 0x" + Long.toHexString(stat.getEphemeralOwner()) + ")");
                    }
                }
                if (!described.isEmpty()) {
                    left.put(lockPath, described);
                }
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the lock nodes under " + lockPaths, e);
        }
        return left;
    }

    static Map<String, List<String>> underQuietly(CuratorFramework observer, Collection<String> lockPaths) {
        try {
            return under(observer, lockPaths);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing the lock nodes under " + lockPaths, e);
        }
    }

    private static List<String> childrenOf(CuratorFramework observer, String lockPath) throws Exception {
        try {
            return observer.getChildren().forPath(lockPath);
        } catch (KeeperException.NoNodeException gone) {
            return List.of();
        }
    }
}
