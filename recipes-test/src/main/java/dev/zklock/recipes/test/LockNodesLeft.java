package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongPredicate;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The lock nodes still under some lock paths, each with its owner's session, for
 * {@link SafetyMonitor#checkNoNodesLeft} and the end of a chaos run. Stateless; one listing per path and one stat per node.
 */
final class LockNodesLeft {
    private LockNodesLeft() {}

    /**
     * A lock node left: its name and the session that owns it.
     *
     * @param name the node's name under its lock path
     * @param session the id of its owner's session (0 for a persistent node)
     */
    record Node(String name, long session) {
        @Override
        public String toString() {
            return name + " (session 0x" + Long.toHexString(session) + ")";
        }
    }

    /** Returns the nodes under each path that has any. */
    static Map<String, List<Node>> under(CuratorFramework observer, Collection<String> lockPaths)
            throws InterruptedException {
        Map<String, List<Node>> left = new HashMap<>();
        try {
            for (String lockPath : lockPaths) {
                List<Node> described = new ArrayList<>();
                for (String child : childrenOf(observer, lockPath)) {
                    Stat stat = observer.checkExists().forPath(ZKPaths.makePath(lockPath, child));
                    if (stat != null) {
                        described.add(new Node(child, stat.getEphemeralOwner()));
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

    /** Waits up to {@code settle} until no path has a node, then returns what is left. */
    static Map<String, List<Node>> afterSettle(CuratorFramework observer, Collection<String> lockPaths, Duration settle)
            throws InterruptedException {
        return Poll.until(settle, () -> Optional.of(under(observer, lockPaths)).filter(Map::isEmpty))
                .orElseGet(() -> underQuietly(observer, lockPaths));
    }

    /** Describes the nodes whose session {@code owner} accepts, each with its session. */
    static List<String> described(List<Node> nodes, LongPredicate owner) {
        return nodes.stream()
                .filter(node -> owner.test(node.session()))
                .map(Node::toString)
                .toList();
    }

    static Map<String, List<Node>> underQuietly(CuratorFramework observer, Collection<String> lockPaths) {
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
