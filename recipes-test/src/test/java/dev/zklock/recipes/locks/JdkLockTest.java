package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** asLock(): the JDK Lock contract over a ZooKeeper lock. */
@Timeout(60)
final class JdkLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void tryLock_whenHeldElsewhere_returnsFalseAtOnceAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        Lock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock")).asLock();
        holder.acquire();

        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(100, TimeUnit.MILLISECONDS)).isFalse();

        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void unlock_byANonOwner_throwsIllegalMonitorState() throws Exception {
        Lock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock")).asLock();

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(zk.path("lock"));
        lock.lock();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(() -> {
                        lock.unlock();
                        return null;
                    }))
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(IllegalMonitorStateException.class);
        }
        lock.unlock();
    }

    @Test
    void lock_whenInterruptedWhileWaiting_keepsWaitingAndRestoresTheFlag() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        Lock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock")).asLock();
        holder.acquire();
        try (LockActor actor = LockActor.start("locker")) {
            CompletableFuture<Boolean> locked = actor.submit(() -> {
                lock.lock();
                boolean interrupted = Thread.interrupted();
                lock.unlock();
                return interrupted;
            });
            await().until(() -> holder.participantNodes().size() == 2);

            actor.interrupt();
            await().until(() -> holder.participantNodes().size() == 2 && !locked.isDone());
            holder.release();

            assertThat(locked.get()).isTrue(); // it got the lock, and the interrupt flag was set again
        }
        assertThat(holder.participantNodes()).isEmpty();
    }

    @Test
    void lockInterruptibly_whenInterrupted_throwsAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        Lock lock = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock")).asLock();
        holder.acquire();
        try (LockActor actor = LockActor.start("locker")) {
            CompletableFuture<Void> locked = actor.submit(() -> {
                lock.lockInterruptibly();
                return null;
            });
            await().until(() -> holder.participantNodes().size() == 2);
            actor.interrupt();
            assertThat(locked)
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(InterruptedException.class);
        }
        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
    }

    @Test
    void newCondition_isUnsupportedAndSaysWhy() {
        Lock lock =
                new ZkReadWriteLock(zk.newClient(), zk.path("rw")).readLock().asLock();

        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(zk.path("rw"))
                .hasMessageContaining("cannot wake a waiter of another process");
    }

    @Test
    void asLock_ofReadWriteAndMultiLocks_followsTheirRules() throws Exception {
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
        Lock read = readWrite.readLock().asLock();
        Lock otherRead =
                new ZkReadWriteLock(zk.newClient(), zk.path("rw")).readLock().asLock();
        Lock write =
                new ZkReadWriteLock(zk.newClient(), zk.path("rw")).writeLock().asLock();
        Lock multi = new ZkMultiLock(zk.newClient(), List.of(zk.path("a"), zk.path("b"))).asLock();
        Lock otherMulti = new ZkMultiLock(zk.newClient(), List.of(zk.path("b"), zk.path("c"))).asLock();

        read.lock();
        assertThat(otherRead.tryLock()).isTrue();
        assertThat(write.tryLock()).isFalse();
        read.unlock();
        otherRead.unlock();
        assertThat(write.tryLock(5, TimeUnit.SECONDS)).isTrue();
        write.unlock();
        assertThat(multi.tryLock(5, TimeUnit.SECONDS)).isTrue();
        assertThat(otherMulti.tryLock()).isFalse();
        multi.unlock();
        assertThat(otherMulti.tryLock()).isTrue();
        otherMulti.unlock();
    }

    @Test
    void asLock_calledTwice_returnsTheSameView() {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        assertThat(lock.asLock()).isSameAs(lock.asLock());
    }
}
