package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.test.WatchersDebug;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/** The checks {@link ZooKeeperExtension} runs after every test. */
final class LeakChecks {
    /** Background deletes after a fault may still be on their way when a test ends; they get this long. */
    private static final Duration SETTLE = Duration.ofSeconds(15);

    private LeakChecks() {}

    /** Fails unless no protected lock node owned by one of {@code sessions} remains anywhere in the tree. */
    static void assertNoLockNodes(String connectString, Set<Long> sessions) throws Exception {
        if (sessions.isEmpty()) {
            return;
        }
        try (AdminSession admin = AdminSession.open(connectString)) {
            await("no lock node of the test's sessions left behind")
                    .atMost(SETTLE)
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(lockNodesOf(admin.zk(), sessions))
                            .as("lock nodes left behind by the test's sessions")
                            .isEmpty());
        }
    }

    /**
     * Fails if the client still has a data, exist or child watch registered outside {@code /zookeeper} once the events
     * on their way have arrived: a watch on a node deleted a moment ago goes only when the client hears of it, which
     * for a client that is reconnecting is after the reconnect.
     */
    static void assertNoWatches(CuratorFramework client) {
        await("no watch left registered on a test client")
                .atMost(SETTLE)
                .pollInterval(Duration.ofMillis(50))
                .pollInSameThread()
                .untilAsserted(() -> assertThat(watchesOf(client))
                        .as("watches left registered on a test client")
                        .isEmpty());
    }

    private static List<String> watchesOf(CuratorFramework client) throws Exception {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            return List.of();
        }
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        List<String> watches = new ArrayList<>();
        watches.addAll(WatchersDebug.getDataWatches(zk));
        watches.addAll(WatchersDebug.getExistWatches(zk));
        watches.addAll(WatchersDebug.getChildWatches(zk));
        // Curator's ensemble tracker watches /zookeeper/config for the life of the client: not the test's.
        watches.removeIf(path -> path.startsWith("/zookeeper/"));
        return watches;
    }

    /**
     * Fails if a non-daemon thread started during the test is still running five seconds after it (JUnit's own
     * threads and the embedded servers' threads aside). Waits by joining the threads, not by polling.
     */
    static void assertNoNewNonDaemonThreads(Set<Thread> before) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Thread thread : newNonDaemonThreads(before)) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
        }
        assertThat(newNonDaemonThreads(before).stream().map(Thread::getName).collect(Collectors.toList()))
                .as("non-daemon threads left running by the test")
                .isEmpty();
    }

    private static List<Thread> newNonDaemonThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.isAlive() && !t.isDaemon())
                .filter(t -> t != Thread.currentThread() && !t.getName().startsWith("junit-"))
                .filter(t -> !EmbeddedZooKeeper.isServerThread(t))
                .collect(Collectors.toList());
    }

    private static List<String> lockNodesOf(ZooKeeper zk, Set<Long> sessions) throws Exception {
        List<String> found = new ArrayList<>();
        walk(zk, "/", sessions, found);
        return found;
    }

    private static void walk(ZooKeeper zk, String path, Set<Long> sessions, List<String> found) throws Exception {
        List<String> children;
        try {
            children = zk.getChildren(path, false);
        } catch (KeeperException.NoNodeException | KeeperException.NoAuthException e) {
            return;
        }
        for (String child : children) {
            String childPath = ZKPaths.makePath(path, child);
            if (childPath.equals("/zookeeper")) {
                continue;
            }
            if (child.startsWith("_c_")) {
                Stat stat = zk.exists(childPath, false);
                if (stat != null && sessions.contains(stat.getEphemeralOwner())) {
                    found.add(childPath + " (session 0x" + Long.toHexString(stat.getEphemeralOwner()) + ")");
                }
            } else {
                walk(zk, childPath, sessions, found);
            }
        }
    }

    /** A plain ZooKeeper handle for looking at the tree, outside any test client. */
    record AdminSession(ZooKeeper zk) implements AutoCloseable {
        static AdminSession open(String connectString) throws Exception {
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
                if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            });
            if (!connected.await(10, TimeUnit.SECONDS)) {
                zk.close();
                throw new IllegalStateException("cannot connect to " + connectString);
            }
            return new AdminSession(zk);
        }

        @Override
        public void close() throws InterruptedException {
            zk.close();
        }
    }
}
