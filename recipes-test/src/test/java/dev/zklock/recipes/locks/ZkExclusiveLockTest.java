package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
final class ZkExclusiveLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquire_byHolderAgain_isNotReentrantAndTimesOut() throws Exception {
        ZkExclusiveLock lock = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));
        lock.acquire();

        assertThat(lock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.acquire(Duration.ZERO)).isFalse();

        assertThat(lock.participantNodes()).hasSize(1);
        assertThat(lock.isAcquiredInThisProcess()).isTrue();
        lock.release();
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void release_byAnotherThread_releasesTheHold() throws Exception {
        ZkExclusiveLock lock = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        long token = lock.fencingToken();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(lock::fencingToken).join()).isEqualTo(token);
            other.run(lock::release).join();
        }
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void release_withoutAHold_throwsIllegalMonitorStateNamingThePath() {
        ZkExclusiveLock lock = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));

        assertThatThrownBy(lock::release)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(zk.path("lock"))
                .hasMessageContaining(Thread.currentThread().getName());
        assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void acquire_byTheHolderWaiting_getsTheLockWhenAnotherThreadReleases() throws Exception {
        ZkExclusiveLock lock = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        try (LockActor releaser = LockActor.start("releaser")) {
            CompletableFuture<Void> released = releaser.submit(() -> {
                await().until(() -> lock.participantNodes().size() == 2);
                lock.release();
                return null;
            });

            assertThat(lock.acquire(20, TimeUnit.SECONDS)).isTrue();
            assertThat(released).succeedsWithin(Duration.ofSeconds(5));
        }
        lock.release();
    }

    @Test
    void mutexLayout_sharesTheQueueWithReentrantLocksAndCuratorMutexes() throws Exception {
        ZkExclusiveLock exclusive = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock"));
        ZkReentrantLock reentrant = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        InterProcessMutex curator = new InterProcessMutex(zk.newClient(), zk.path("lock"));

        exclusive.acquire();
        assertThat(reentrant.acquire(Duration.ZERO)).isFalse();
        assertThat(curator.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        exclusive.release();
        assertThat(curator.acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(exclusive.acquire(Duration.ZERO)).isFalse();
        curator.release();
    }
}
