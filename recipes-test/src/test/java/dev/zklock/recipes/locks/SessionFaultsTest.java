package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real session expiry and real server stops, while holding and while waiting. */
@Timeout(120)
final class SessionFaultsTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquire_whenHolderSessionExpires_waiterGetsTheLock() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Boolean> acquired = actor.submit(() -> waiter.acquire(30, TimeUnit.SECONDS));
            await().until(() -> waiter.participantNodes().size() == 2);

            zk.expireSession(holderClient);

            assertThat(acquired.get()).isTrue();
            assertThat(waiter.participantNodes()).hasSize(1);
            actor.run(waiter::release).join();
        }
        String lostNode = holder.getLockPath(); // still known until released, as Curator's getLockPath() is
        assertThat(lostNode).isNotNull();
        assertThat(zk.newClient().checkExists().forPath(lostNode)).isNull();
        holder.release(); // the node went with the session: clears the local hold, throws nothing
        assertThat(holder.isHeldByCurrentThread()).isFalse();
        assertThat(holder.getLockPath()).isNull();
    }

    @Test
    void acquire_whenWaiterSessionExpires_entersAgainAndDeletesNothingItDoesNotOwn() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        CuratorFramework waiterClient = zk.newClient();
        ZkReentrantLock waiter = new ZkReentrantLock(waiterClient, zk.path("lock"));
        holder.acquire();
        String holderNode = holder.participantNodes().get(0);
        CountDownLatch reconnected = new CountDownLatch(1);
        waiterClient.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Boolean> acquired = actor.submit(() -> waiter.acquire(60, TimeUnit.SECONDS));
            await().until(() -> holder.participantNodes().size() == 2);
            String firstWaiterNode = holder.participantNodes().get(1);

            zk.expireSession(waiterClient);
            reconnected.await();
            await().until(() -> {
                List<String> nodes = holder.participantNodes();
                return nodes.size() == 2 && !nodes.contains(firstWaiterNode);
            });

            assertThat(holder.participantNodes().get(0)).isEqualTo(holderNode);
            assertThat(acquired).isNotDone();
            holder.release();
            assertThat(acquired.get()).isTrue();
            actor.run(waiter::release).join();
        }
    }

    @Test
    void hold_whenServerStopsAndRestarts_keepsItsNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        long token = holder.fencingToken();

        zk.stopServer();
        zk.restartServer();

        await().untilAsserted(() -> assertThat(other.acquire(Duration.ZERO)).isFalse());
        assertThat(holder.fencingToken()).isEqualTo(token);
        holder.release();
        assertThat(other.acquire(10, TimeUnit.SECONDS)).isTrue();
        other.release();
    }

    @Test
    void acquire_whenServerRestartsWhileWaiting_getsTheLockAfterTheRelease() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Boolean> acquired = actor.submit(() -> waiter.acquire(60, TimeUnit.SECONDS));
            await().until(() -> holder.participantNodes().size() == 2);

            zk.stopServer();
            zk.restartServer();
            assertThat(acquired).isNotDone();
            await().until(() -> holder.participantNodes().size() == 2);
            holder.release();

            assertThat(acquired.get()).isTrue();
            actor.run(waiter::release).join();
        }
    }

    @Test
    void release_whileServerIsDown_returnsAndTheNodeGoesWhenTheServerReturns() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();

        zk.stopServer();
        holder.release();
        assertThat(holder.isHeldByCurrentThread()).isFalse();
        zk.restartServer();

        assertThat(other.acquire(30, TimeUnit.SECONDS)).isTrue();
        assertThat(other.participantNodes()).hasSize(1);
        other.release();
    }

    @Test
    void release_ofAHoldLostWhileTheServerWasDown_deletesTheNodeTheServerStillKeeps() throws Exception {
        CuratorFramework holderClient = zk.newClient(builder -> builder.sessionTimeoutMs(4_000));
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        holder.acquire();
        String node = holder.participantNodes().get(0);
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch reconnected = new CountDownLatch(1);
        holderClient.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                lost.countDown();
            } else if (state == ConnectionState.RECONNECTED && lost.getCount() == 0) {
                reconnected.countDown();
            }
        });

        zk.stopServer();
        assertThat(lost.await(60, TimeUnit.SECONDS)).isTrue();
        zk.restartServer();
        assertThat(reconnected.await(60, TimeUnit.SECONDS)).isTrue();
        await().pollInSameThread()
                .untilAsserted(() -> assertThat(holder.holdState()).contains(LockState.LOST));
        CuratorFramework other = zk.newClient();
        // The server was down while the client gave the session up: it keeps the old session, and its node, for now.
        assertThat(other.checkExists().forPath(node)).isNotNull();

        holder.release();

        assertThat(other.checkExists().forPath(node)).isNull();
        assertThat(holder.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void acquire_timedWhileServerIsDown_returnsFalseAndCreatesNothing() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        zk.stopServer();

        assertThat(lock.acquire(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(lock.acquire(Duration.ZERO)).isFalse();

        zk.restartServer();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void acquire_untimedWhileServerIsDown_waitsAndGetsTheLockWhenItReturns() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        zk.stopServer();
        try (LockActor actor = LockActor.start("acquirer")) {
            CompletableFuture<Void> acquired = actor.submit(() -> {
                lock.acquire();
                return null;
            });
            zk.restartServer();

            assertThat(acquired).succeedsWithin(Duration.ofSeconds(30));
            assertThat(lock.participantNodes()).hasSize(1);
            actor.run(lock::release).join();
        }
    }
}
