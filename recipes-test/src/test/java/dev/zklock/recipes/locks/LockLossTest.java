package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.listen.StandardListenerManager;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lock states as the connection comes and goes: HELD, IN_DOUBT, LOST, and back; listeners; fencing by check. */
@Timeout(120)
final class LockLossTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void hold_whenTheSessionExpires_isLostAndTheListenerHearsIt() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        lock.addStateListener(events::add);
        lock.acquire();
        long token = lock.fencingToken();
        assertThat(lock.holdState()).contains(LockState.HELD);

        zk.expireSession(client);
        await().until(() -> events.stream().anyMatch(e -> e.state() == LockState.LOST));

        assertThat(events).last().satisfies(event -> {
            assertThat(event.lockPath()).isEqualTo(zk.path("lock"));
            assertThat(event.fencingToken()).isEqualTo(token);
            assertThat(event.node()).startsWith(zk.path("lock") + "/_c_");
        });
        assertThat(lock.holdState()).contains(LockState.LOST);
        assertThat(lock.isHeldByCurrentThread())
                .as("the local record, until release")
                .isTrue();
        assertThat(lock.isAcquiredInThisProcess()).isTrue();
        assertThatThrownBy(lock::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lost");
        lock.release(); // clears the local hold; throws nothing
        assertThat(lock.holdState()).isEmpty();
        lock.acquire();
        assertThat(lock.fencingToken()).isGreaterThan(token);
        lock.release();
    }

    @Test
    void hold_whenTheServerRestartsWithinTheSession_isInDoubtThenHeldAgain() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, zk.path("lock"));
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        lock.addStateListener(events::add);
        lock.acquire();

        zk.stopServer();
        await().until(() -> events.size() == 1);
        assertThat(lock.holdState()).contains(LockState.IN_DOUBT);
        zk.restartServer();
        await().until(() -> events.size() == 2);

        assertThat(events).extracting(LockStateEvent::state).containsExactly(LockState.IN_DOUBT, LockState.HELD);
        assertThat(lock.holdState()).contains(LockState.HELD);
        assertThat(lock.isAcquiredInThisProcess()).isTrue();
        lock.release();
    }

    /**
     * A reconnect that kept the session reads the node of every hold in doubt, one request each, sent together, and
     * tells listeners off ZooKeeper's event thread.
     */
    @Test
    void reconnect_withManyHolds_readsEachHoldsNodeOnceAndTellsListenersOffTheEventThread() throws Exception {
        CuratorFramework client = zk.newClient();
        List<ZkExclusiveLock> locks = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, zk.path("lock-" + i));
            lock.acquire();
            locks.add(lock);
        }
        List<String> heldAgainOn = new CopyOnWriteArrayList<>();
        LockStateListener listener = event -> {
            if (event.state() == LockState.HELD) {
                heldAgainOn.add(Thread.currentThread().getName());
            }
        };
        LockStates.addListener(client, listener);
        ServerCounters before = zk.counters();

        zk.dropConnection(client);
        await().until(() -> heldAgainOn.size() == 40);

        long requests = zk.counters().requestsSince(before);
        // 40 reads, the reconnect and the pings of the test's clients (a handful)
        assertThat(requests).as("requests, pings included").isBetween(40L, 50L);
        assertThat(heldAgainOn).noneMatch(thread -> thread.endsWith("EventThread"));
        assertThat(locks).allMatch(lock -> lock.holdState().orElseThrow() == LockState.HELD);
        LockStates.removeListener(client, listener);
        for (ZkExclusiveLock lock : locks) {
            lock.release();
        }
    }

    /**
     * A session with more nodes than one reply may carry (the client's jute.maxbuffer, 1 MB): its holds are HELD again
     * after a reconnect, and the client stays connected. The check listed the session's ephemeral nodes in one reply
     * (its waiters' nodes and other recipes' among them); past the limit the client dropped the connection on that
     * reply, and every RECONNECTED asked again, so the client never stayed connected.
     */
    @Test
    void reconnect_sessionWithMoreNodesThanOneReplyCarries_holdIsHeldAgainAndTheClientStaysConnected()
            throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        List<LockState> heard = new CopyOnWriteArrayList<>();
        lock.addStateListener(event -> heard.add(event.state()));
        lock.acquire();
        String others = zk.path("others-" + "o".repeat(80));
        client.create().forPath(others);
        int count = 8_000; // about 1.2 MB of paths
        CountDownLatch created = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            client.create()
                    .withMode(CreateMode.EPHEMERAL)
                    .inBackground((c, event) -> created.countDown())
                    .forPath(others + "/node-" + "n".repeat(40) + i);
        }
        assertThat(created.await(60, TimeUnit.SECONDS)).isTrue();
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        client.getConnectionStateListenable().addListener((c, state) -> states.add(state));

        zk.dropConnection(client);
        await().atMost(Duration.ofSeconds(60)).until(() -> heard.contains(LockState.HELD));

        assertThat(heard).containsExactly(LockState.IN_DOUBT, LockState.HELD);
        assertThat(lock.holdState()).contains(LockState.HELD);
        assertThat(states).containsExactly(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
        assertThat(client.getZookeeperClient().isConnected()).isTrue();
        lock.release();
    }

    @Test
    void listeners_oneClientManyLocks_registerOneConnectionListener() throws Exception {
        CuratorFramework client = zk.newClient();
        StandardListenerManager<?> manager = (StandardListenerManager<?>) client.getConnectionStateListenable();
        int before = manager.size();
        List<ZkReentrantLock> locks = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock-" + i));
            lock.acquire();
            locks.add(lock);
        }
        ZkReadWriteLock readWrite = new ZkReadWriteLock(client, zk.path("rw"));
        readWrite.readLock().acquire();

        assertThat(manager.size()).isEqualTo(before + 1);
        for (ZkReentrantLock lock : locks) {
            lock.release();
        }
        readWrite.readLock().release();
    }

    @Test
    void listener_thatThrows_isLoggedAndDisturbsNeitherTheLockNorOtherListeners() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        ZkReadWriteLock other = new ZkReadWriteLock(client, zk.path("rw"));
        List<LockStateEvent> heard = new CopyOnWriteArrayList<>();
        LockStateListener throwing = event -> {
            throw new IllegalStateException("listener bug");
        };
        lock.addStateListener(throwing);
        LockStates.addListener(client, throwing);
        LockStates.addListener(client, heard::add);
        try {
            lock.acquire();
            other.writeLock().acquire();

            zk.expireSession(client);
            await().until(() ->
                    heard.stream().filter(e -> e.state() == LockState.LOST).count() == 2);

            assertThat(heard).extracting(LockStateEvent::lockPath).contains(zk.path("lock"), zk.path("rw"));
            lock.release();
            other.writeLock().release();
        } finally {
            LockStates.removeListener(client, throwing);
        }
    }

    @Test
    void holdCheck_inATransaction_commitsOnlyWhileTheLockIsHeld() throws Exception {
        CuratorFramework client = zk.newClient();
        CuratorFramework observer = zk.newClient();
        observer.create().forPath(zk.path("resource"), bytes("v0"));
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        lock.addStateListener(events::add);
        lock.acquire();

        client.transaction()
                .forOperations(
                        lock.holdCheck(), client.transactionOp().setData().forPath(zk.path("resource"), bytes("v1")));
        assertThat(observer.getData().forPath(zk.path("resource"))).isEqualTo(bytes("v1"));

        var check = lock.holdCheck();
        zk.expireSession(client);
        await().until(() -> events.stream().anyMatch(e -> e.state() == LockState.LOST));
        assertThatThrownBy(() -> client.transaction()
                        .forOperations(
                                check, client.transactionOp().setData().forPath(zk.path("resource"), bytes("v2"))))
                .isInstanceOf(KeeperException.NoNodeException.class);
        assertThat(observer.getData().forPath(zk.path("resource"))).isEqualTo(bytes("v1"));
        lock.release();
        assertThatThrownBy(lock::holdCheck).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void multiLock_whenTheSessionExpires_isLost() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkMultiLock lock = new ZkMultiLock(client, List.of(zk.path("a"), zk.path("b")));
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        lock.addStateListener(events::add);
        lock.acquire();

        zk.expireSession(client);
        await().until(() ->
                events.stream().filter(e -> e.state() == LockState.LOST).count() == 2);

        assertThat(lock.holdState()).contains(LockState.LOST);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.release();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.acquire(Duration.ofSeconds(5))).isTrue();
        lock.release();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
