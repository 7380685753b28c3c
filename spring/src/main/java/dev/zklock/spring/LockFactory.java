package dev.zklock.spring;

import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.PathUtils;
import org.apache.curator.utils.ZKPaths;

/**
 * How a {@link ZkSpringLockRegistry} makes the lock of a key: the key checked, its path (the root, a slash and the key,
 * as Spring's {@code ZookeeperLockRegistry} makes it, or what the key-to-path function makes of the key), and the
 * zklock lock on that path with the registry's local hand-off and idle node. Immutable: safe for use by multiple
 * threads. No ZooKeeper call, building a lock included.
 */
final class LockFactory {
    private final CuratorFramework client;
    private final String root;
    private final boolean localHandOff;
    private final Duration keepIdle;
    private final boolean queueView;
    private final ZkLockKeyToPath keyToPath; // null: the root, a slash and the key

    LockFactory(
            CuratorFramework client,
            String root,
            boolean localHandOff,
            Duration keepIdle,
            boolean queueView,
            ZkLockKeyToPath keyToPath) {
        this.client = client;
        this.root = root;
        this.localHandOff = localHandOff;
        this.keepIdle = keepIdle;
        this.queueView = queueView;
        this.keyToPath = keyToPath;
    }

    /**
     * Returns {@code root} without a trailing slash, checked as a ZooKeeper path.
     *
     * @throws NullPointerException if {@code root} is null
     * @throws IllegalArgumentException if {@code root} is not a valid ZooKeeper path
     */
    static String validRoot(String root) {
        Objects.requireNonNull(root, "root");
        String trimmed = root.length() > 1 && root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        try {
            PathUtils.validatePath(trimmed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "lock registry root '" + root + "' is not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        return trimmed;
    }

    /**
     * Returns {@code lockKey} as the string a key must be.
     *
     * @throws NullPointerException if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string
     */
    static String requireKey(Object lockKey) {
        Objects.requireNonNull(lockKey, "lockKey");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException(
                    "lock key must be a String, not a " + lockKey.getClass().getName() + ": " + lockKey);
        }
        return key;
    }

    /**
     * Returns the lock path of {@code lockKey}, relative to the client's namespace.
     *
     * @throws NullPointerException if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string or does not make a valid path
     */
    String pathOf(Object lockKey) {
        String key = requireKey(lockKey);
        String path = keyToPath != null ? keyToPath.pathFor(key) : root.endsWith("/") ? root + key : root + "/" + key;
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "lock key '" + key + "' makes '" + path + "', not a valid ZooKeeper path: " + e.getMessage(), e);
        }
        return path;
    }

    /**
     * Builds the zklock lock on {@code path}: a cohort lock with local hand-off, keeping its node if told to; with a
     * queue view, one watch per client on the root for every key's path under it (a path a key-to-path function made
     * elsewhere watches itself).
     */
    ZkReentrantLock newLock(String path) {
        ZkReentrantLock.Builder builder = ZkReentrantLock.builder(client, path);
        if (localHandOff) {
            builder.localHandOff();
            if (!keepIdle.isZero()) {
                builder.keepIdle(keepIdle);
            }
        }
        if (queueView) {
            boolean underRoot = ZKPaths.getPathAndNode(path).getPath().equals(root);
            if (underRoot) {
                builder.queueViewUnder(root);
            } else {
                builder.queueView();
            }
        }
        return builder.build();
    }

    String root() {
        return root;
    }

    boolean isLocalHandOff() {
        return localHandOff;
    }

    Duration keepIdle() {
        return keepIdle;
    }

    boolean isQueueView() {
        return queueView;
    }
}
