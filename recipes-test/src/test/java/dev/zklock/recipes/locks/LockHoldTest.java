package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Holds for try-with-resources: closing releases; the timed form throws LockTimeoutException when not acquired. */
@Timeout(60)
final class LockHoldTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void hold_inTryWithResources_releasesOnClose() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        try (LockHold hold = lock.hold(Duration.ofSeconds(5))) {
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(hold.fencingToken()).isEqualTo(lock.fencingToken());
            assertThat(hold.state()).isEqualTo(LockState.HELD);
        }

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void hold_timedWhenHeldElsewhere_throwsLockTimeoutNamingPathAndTime() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkExclusiveLock other = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock"));
        holder.acquire();

        assertThatThrownBy(() -> other.hold(Duration.ofMillis(200)))
                .isInstanceOfSatisfying(LockTimeoutException.class, e -> {
                    assertThat(e.lockPath()).isEqualTo(zk.path("lock"));
                    assertThat(e.timeout()).isEqualTo(Duration.ofMillis(200));
                })
                .hasMessageContaining(zk.path("lock"))
                .hasMessageContaining("200 ms");

        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
    }

    @Test
    void close_twice_releasesOnce() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        LockHold hold = lock.hold();
        assertThat(lock.getHoldCount()).isEqualTo(2);

        hold.close();
        hold.close();

        assertThat(hold.isReleased()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.release();
    }

    @Test
    void close_byAnotherThreadOfAPerThreadLock_throwsAndKeepsTheHoldClosable() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        LockHold hold = lock.hold();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(() -> {
                        hold.close();
                        return null;
                    }))
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(IllegalMonitorStateException.class);
        }
        assertThat(hold.isReleased()).isFalse();
        hold.close();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void hold_readWriteAndMultiLocks_releaseOnClose() throws Exception {
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), List.of(zk.path("a"), zk.path("b")));

        try (LockHold write = readWrite.writeLock().hold();
                LockHold both = multi.hold(Duration.ofSeconds(5))) {
            assertThat(both.fencingTokens()).containsOnlyKeys(zk.path("a"), zk.path("b"));
            assertThat(both.fencingToken()).isEqualTo(both.fencingTokens().get(zk.path("a")));
            assertThat(write.fencingToken()).isPositive();
        }

        assertThat(readWrite.participantNodes()).isEmpty();
        assertThat(multi.isAcquiredInThisProcess()).isFalse();
    }
}
