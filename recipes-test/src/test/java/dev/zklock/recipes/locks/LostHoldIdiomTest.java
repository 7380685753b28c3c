package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.zklock.recipes.locks.LockKinds#all")
    void curatorsEnding_afterTheThreadHeardOfTheLoss_releasesAndTheThreadAcquiresAgain(LockKinds.Kind kind)
            throws Exception {
        CuratorFramework client = zk.newClient();
        LockKinds.Subject subject = kind.make().apply(client, zk.path("lock"));
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
    @MethodSource("dev.zklock.recipes.locks.LockKinds#all")
    void curatorsEnding_beforeTheClientHeardOfTheLoss_releasesAndTheThreadAcquiresAgain(LockKinds.Kind kind)
            throws Exception {
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
        LockKinds.awaitNoLockNodes(zk, zk.path("lock"));
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
}
