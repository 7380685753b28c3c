package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.zookeeper.KeeperException;

/**
 * Every zklock lock that implements Curator's {@code InterProcessLock}, in every mode (plain, {@code localHandOff},
 * {@code keepIdle}), for tests that Curator's idioms work with each: a parameter source.
 */
final class LockKinds {
    private LockKinds() {}

    /** A lock of one kind and how to hear its hold's states. */
    record Subject(InterProcessLock lock, Consumer<LockStateListener> listen) {}

    /** A kind of lock, made on a client and a path. */
    record Kind(String name, BiFunction<CuratorFramework, String, Subject> make) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** Returns every kind; a multi-lock takes the children {@code a} and {@code b} of the path given. */
    static Stream<Kind> all() {
        return Stream.of(
                new Kind("ZkReentrantLock", (client, path) -> of(new ZkReentrantLock(client, path))),
                new Kind(
                        "ZkReentrantLock, localHandOff",
                        (client, path) -> of(ZkReentrantLock.builder(client, path)
                                .localHandOff()
                                .build())),
                new Kind(
                        "ZkReentrantLock, keepIdle",
                        (client, path) -> of(ZkReentrantLock.builder(client, path)
                                .keepIdle(Duration.ofMillis(100))
                                .build())),
                new Kind("ZkExclusiveLock", (client, path) -> of(new ZkExclusiveLock(client, path))),
                new Kind(
                        "ZkExclusiveLock.mutexLayout", (client, path) -> of(ZkExclusiveLock.mutexLayout(client, path))),
                new Kind("ZkReadWriteLock write", (client, path) -> of(new ZkReadWriteLock(client, path).writeLock())),
                new Kind(
                        "ZkReadWriteLock read, localHandOff",
                        (client, path) -> of(ZkReadWriteLock.builder(client, path)
                                .localHandOff()
                                .build()
                                .readLock())),
                new Kind("ZkMultiLock", (client, path) -> {
                    ZkMultiLock multi = new ZkMultiLock(client, List.of(path + "/a", path + "/b"));
                    return new Subject(multi, multi::addStateListener);
                }));
    }

    private static Subject of(AbstractZkLock lock) {
        return new Subject(lock, lock::addStateListener);
    }

    /** Waits until no lock node is left under {@code path}: a kept idle node goes after its keepIdle. */
    static void awaitNoLockNodes(ZooKeeperExtension zk, String path) {
        CuratorFramework observer = zk.newClient();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(lockNodesUnder(observer, path)).isZero());
    }

    private static int lockNodesUnder(CuratorFramework observer, String path) throws Exception {
        List<String> children;
        try {
            children = observer.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
            return 0; // never made, or an empty container parent the server reaped
        }
        int nodes = 0;
        for (String child : children) {
            nodes += child.startsWith("_c_") ? 1 : lockNodesUnder(observer, path + "/" + child);
        }
        return nodes;
    }
}
