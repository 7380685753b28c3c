package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Curator's idioms keep working after a lost hold: the session ends on the server while the test thread holds, the
 * thread runs Curator's usual ending, {@code finally { if (lock.isAcquiredInThisProcess()) lock.release(); }}, and then
 * acquires again within its timeout. Ownership is the local record until {@code release()}, as in Curator, while
 * {@code holdState()} says LOST; every lock kind, in every mode (plain, {@code localHandOff}, {@code keepIdle}), and
 * whether the thread runs the ending after it heard of the loss or before.
 */
@Timeout(120)
final class LostHoldIdiomTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** A lock of one kind and how to hear its hold's states. */
    private record Subject(InterProcessLock lock, Consumer<LockStateListener> listen) {}

    /** A kind of lock, made on a client and a path. */
    private record Kind(String name, BiFunction<CuratorFramework, String, Subject> make) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Kind> kinds() {
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
                        "ZkExclusiveLock.semaphoreMutex",
                        (client, path) -> of(ZkExclusiveLock.semaphoreMutex(client, path))),
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

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void curatorsEnding_afterTheThreadHeardOfTheLoss_releasesAndTheThreadAcquiresAgain(Kind kind) throws Exception {
        CuratorFramework client = zk.newClient();
        Subject subject = kind.make().apply(client, zk.path("lock"));
        InterProcessLock lock = subject.lock();
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        subject.listen().accept(events::add);
        lock.acquire();

        zk.expireSession(client);
        await().until(() -> events.stream().anyMatch(event -> event.state() == LockState.LOST));

        assertThat(lock.isAcquiredInThisProcess())
                .as("the local record, until release")
                .isTrue();
        assertThatThrownBy(lock::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost");
        endAsCuratorCodeDoesThenAcquireAgain(lock);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void curatorsEnding_beforeTheClientHeardOfTheLoss_releasesAndTheThreadAcquiresAgain(Kind kind) throws Exception {
        CuratorFramework client = zk.newClient();
        InterProcessLock lock = kind.make().apply(client, zk.path("lock")).lock();
        lock.acquire();

        zk.expireSession(client);

        endAsCuratorCodeDoesThenAcquireAgain(lock);
    }

    /**
     * Curator's usual ending of a hold, then an acquire within its timeout, then a release; nothing may be left. The
     * body of the {@code try} stands for the work, which a listener told of the loss would stop.
     */
    private static void endAsCuratorCodeDoesThenAcquireAgain(InterProcessLock lock) throws Exception {
        try {
            assertThat(lock.isAcquiredInThisProcess())
                    .as("the local record, until release")
                    .isTrue();
        } finally {
            if (lock.isAcquiredInThisProcess()) {
                lock.release();
            }
        }
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
        lock.release();
        awaitNoLockNodes();
    }

    @Test
    void isOwnedByCurrentThread_ofALostHold_staysTrueUntilReleaseWhileHoldStateSaysLost() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        lock.addStateListener(events::add);
        lock.acquire();
        lock.acquire();

        zk.expireSession(client);
        await().until(() -> events.stream().anyMatch(event -> event.state() == LockState.LOST));

        assertThat(lock.holdState()).contains(LockState.LOST);
        assertThat(lock.isOwnedByCurrentThread()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        while (lock.isOwnedByCurrentThread()) {
            lock.release();
        }
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.holdState()).isEmpty();
        assertThat(lock.acquire(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.holdState()).contains(LockState.HELD);
        lock.release();
    }

    /** A kept idle node goes after its keepIdle; every other kind deletes at the release. */
    private static void awaitNoLockNodes() {
        CuratorFramework observer = zk.newClient();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lockNodesUnder(observer, zk.path("lock")))
                .isZero());
    }

    private static int lockNodesUnder(CuratorFramework observer, String path) throws Exception {
        if (observer.checkExists().forPath(path) == null) {
            return 0;
        }
        int nodes = 0;
        for (String child : observer.getChildren().forPath(path)) {
            nodes += child.startsWith("_c_") ? 1 : lockNodesUnder(observer, path + "/" + child);
        }
        return nodes;
    }
}
