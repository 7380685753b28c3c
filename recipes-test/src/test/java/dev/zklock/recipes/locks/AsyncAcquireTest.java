package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** acquireAsync: holds owned by the hold, waiting on watches with no thread per waiter, cancel and deadline. */
@Timeout(120)
final class AsyncAcquireTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquireAsync_thousandWaitersOnOneClient_allHoldInTurnWithoutAThreadEach() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        int threadsBefore = Thread.activeCount();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Long>> tokens = new ArrayList<>();
        LockHold first = lock.acquireAsync(Duration.ofSeconds(10)).get(); // everyone else queues behind it

        for (int i = 0; i < 1000; i++) {
            tokens.add(lock.acquireAsync(Duration.ofSeconds(90)).thenApply(hold -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                long token = hold.fencingToken();
                inside.decrementAndGet();
                hold.close(); // any thread may release an async hold
                return token;
            }));
        }
        await().atMost(60, TimeUnit.SECONDS).until(() -> lock.participantNodes().size() == 1001);
        int threadsWhileWaiting = Thread.activeCount();
        first.close();
        CompletableFuture.allOf(tokens.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);

        assertThat(threadsWhileWaiting - threadsBefore).isLessThan(20);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens.stream().map(CompletableFuture::join).distinct()).hasSize(1000);
        assertThat(lock.participantNodes()).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void acquireAsync_whenCancelledWhileWaiting_withdrawsAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock")); // in the holder's queue
        holder.acquire();
        CompletableFuture<LockHold> pending = lock.acquireAsync();
        await().until(() -> holder.participantNodes().size() == 2);

        assertThat(pending.cancel(true)).isTrue();

        await().until(() -> holder.participantNodes().size() == 1);
        holder.release();
        assertThat(lock.acquire(Duration.ZERO)).isTrue(); // the cancelled waiter is not in the way
        lock.release();
    }

    @Test
    void acquireAsync_whenTheTimeRunsOut_failsWithLockTimeoutAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();

        CompletableFuture<LockHold> pending = lock.acquireAsync(Duration.ofMillis(300));

        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining(zk.path("lock"));
        await().until(() -> holder.participantNodes().size() == 1);
        holder.release();
    }

    /**
     * A single try that gives up before its create's reply came must still delete what the create made. Actors: one
     * client trying {@code acquireAsync} with a zero or negative timeout 100 times, first while another client holds
     * the lock, then while nobody does. Forbidden: a node of the trying client left in the queue (it would block every
     * other client of the path until its session ends), or another client unable to take the free lock afterwards.
     */
    @Test
    void acquireAsync_withZeroOrNegativeTimeout_leavesNoNodeWhetherHeldOrFree() throws Exception {
        for (boolean reentrant : new boolean[] {true, false}) {
            String path = zk.path(reentrant ? "reentrant" : "exclusive");
            CuratorFramework trying = zk.newClient();
            ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), path);
            other.acquire();
            tryAsync100Times(trying, path, reentrant);
            other.release();
            tryAsync100Times(trying, path, reentrant);

            await().until(() -> other.participantNodes().isEmpty());
            assertThat(other.acquire(Duration.ZERO)).isTrue();
            other.release();
        }
    }

    @Test
    void acquireAsync_withZeroTimeoutOnAFreeLock_holdsIt() throws Exception {
        ZkExclusiveLock lock = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));

        LockHold hold = lock.acquireAsync(Duration.ZERO).get(10, TimeUnit.SECONDS);

        assertThat(lock.participantNodes()).hasSize(1);
        hold.close();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void acquireAsync_whenTheWaitersSessionExpires_entersAgainAndHoldsAfterTheRelease() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        CuratorFramework waiterClient = zk.newClient();
        ZkReentrantLock waiter = new ZkReentrantLock(waiterClient, zk.path("lock"));
        holder.acquire();
        CompletableFuture<LockHold> pending = waiter.acquireAsync(Duration.ofSeconds(60));
        await().until(() -> holder.participantNodes().size() == 2);
        String firstWaiterNode = holder.participantNodes().get(1);

        zk.expireSession(waiterClient);
        await().until(() -> {
            List<String> nodes = holder.participantNodes();
            return nodes.size() == 2 && !nodes.contains(firstWaiterNode);
        });

        assertThat(pending).isNotDone();
        holder.release();
        pending.get(30, TimeUnit.SECONDS).close();
        assertThat(holder.participantNodes()).isEmpty();
    }

    private static void tryAsync100Times(CuratorFramework client, String path, boolean reentrant) throws Exception {
        for (int i = 0; i < 100; i++) {
            Duration timeout = i % 2 == 0 ? Duration.ZERO : Duration.ofMillis(-5);
            AbstractZkLock lock =
                    reentrant ? new ZkReentrantLock(client, path) : ZkExclusiveLock.mutexLayout(client, path);
            try {
                lock.acquireAsync(timeout).get(10, TimeUnit.SECONDS).close();
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LockTimeoutException.class);
            }
        }
    }

    @Test
    void acquireAsync_twiceFromOneThread_takesTwoPlacesInTheQueue() throws Exception {
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));

        LockHold first =
                readWrite.writeLock().acquireAsync(Duration.ofSeconds(5)).get();
        CompletableFuture<LockHold> second = readWrite.writeLock().acquireAsync(Duration.ofSeconds(30));
        await().until(() -> readWrite.participantNodes().size() == 2);

        assertThat(second).isNotDone();
        assertThat(readWrite.writeLock().isHeldByCurrentThread()).isFalse();
        first.close();
        second.get(10, TimeUnit.SECONDS).close();
        assertThat(readWrite.participantNodes()).isEmpty();
    }

    @Test
    void acquireAsync_whileTheServerIsDown_waitsAndHoldsWhenItReturns() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        zk.stopServer();

        CompletableFuture<LockHold> pending = lock.acquireAsync(Duration.ofSeconds(60));
        zk.restartServer();

        LockHold hold = pending.get(30, TimeUnit.SECONDS);
        assertThat(lock.participantNodes()).hasSize(1);
        hold.close();
        assertThat(lock.participantNodes()).isEmpty();
    }
}
