package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The monitor against real locks on a real server: a broken driver's overlap and a node left behind are caught, and a
 * cached node (a cohort lock's keepIdle) is waited for within the settle time and counted as left behind after it.
 */
@Timeout(60)
final class SafetyMonitorZooKeeperTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** Breaks the driver contract on purpose: every node holds, whatever is ahead of it. */
    private static final LockDriver EVERYONE_HOLDS = view -> LockDecision.holds();

    private final SafetyMonitor monitor = SafetyMonitor.create();

    @Test
    void enter_locksWhoseDriverLetsEveryoneHold_catchesTheOverlap() throws Exception {
        CuratorFramework aliceClient = zk.newClient();
        CuratorFramework bobClient = zk.newClient();
        ZkReentrantLock alice = new ZkReentrantLock(aliceClient, zk.path("lock"), EVERYONE_HOLDS);
        ZkReentrantLock bob = new ZkReentrantLock(bobClient, zk.path("lock"), EVERYONE_HOLDS);

        alice.acquire();
        SafetyMonitor.Hold aliceHold =
                monitor.enter("alice", SafetyMonitor.Claim.exclusive(alice.path(), alice.fencingToken(), aliceClient));
        bob.acquire();
        SafetyMonitor.Hold bobHold =
                monitor.enter("bob", SafetyMonitor.Claim.exclusive(bob.path(), bob.fencingToken(), bobClient));

        assertThat(alice.participantNodes()).hasSize(2);
        SafetyReport report = monitor.report();
        assertThat(report.overlaps()).isEqualTo(1);
        assertThat(report.tokenRegressions()).isZero();
        assertThat(report.firstViolations()).singleElement().asString().contains("alice", "bob", zk.path("lock"));
        bobHold.exit();
        bob.release();
        aliceHold.exit();
        alice.release();
        assertThat(alice.participantNodes()).isEmpty();
    }

    @Test
    void checkNoNodesLeft_aHeldLockNode_countsItLeakedWithItsSession() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        lock.acquire();

        int left = monitor.checkNoNodesLeft(client, List.of(zk.path("lock")), Duration.ofMillis(200));

        assertThat(left).isEqualTo(1);
        assertThat(monitor.report().leakedNodes()).isEqualTo(1);
        assertThat(monitor.report().firstViolations())
                .singleElement()
                .asString()
                .contains(zk.path("lock"), Long.toHexString(Sessions.current(client)));
        lock.release();
        assertThat(monitor.checkNoNodesLeft(client, List.of(zk.path("lock"), zk.path("never")), Duration.ofSeconds(5)))
                .isZero();
    }

    @Test
    void checkNoNodesLeft_aCachedNodeWhoseKeepIdleEndsWithinTheSettle_waitsForItAndCountsNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        Duration keepIdle = Duration.ofSeconds(1);
        ZkReentrantLock lock = ZkReentrantLock.builder(client, zk.path("lock"))
                .keepIdle(keepIdle)
                .build();
        lock.acquire();
        lock.release(); // the node stays, cached, for keepIdle

        int left = monitor.checkNoNodesLeft(client, List.of(zk.path("lock")), keepIdle.plus(Duration.ofSeconds(10)));

        assertThat(left).isZero();
        assertThat(monitor.report().isClean()).isTrue();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void checkNoNodesLeft_aCachedNodeStillThereAfterTheSettle_countsItLeaked() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = ZkReentrantLock.builder(client, zk.path("lock"))
                .keepIdle(Duration.ofMinutes(10))
                .build();
        lock.acquire();
        lock.release();

        int left = monitor.checkNoNodesLeft(client, List.of(zk.path("lock")), Duration.ofMillis(200));

        assertThat(left).isEqualTo(1);
        assertThat(monitor.report().firstViolations())
                .singleElement()
                .asString()
                .contains(zk.path("lock"), Long.toHexString(Sessions.current(client)));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        assertThat(other.acquire(Duration.ofSeconds(10))).isTrue(); // a waiter ends the caching
        other.release();
        assertThat(lock.participantNodes()).isEmpty();
    }
}
