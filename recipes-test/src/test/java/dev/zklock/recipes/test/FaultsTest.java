package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The faults of the chaos workload that need more than a one-line hook, against a real server: a silenced connection
 * (SUSPENDED, then RECONNECTED on the same session), a lock node deleted by a stranger, a client closed under its
 * holder.
 */
@Timeout(120)
final class FaultsTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private final SafetyMonitor monitor = SafetyMonitor.create();

    /**
     * A 4 s session leaves 1.5 s of silence (the client's reconnect gets the rest), so the proxies cut the connection
     * within it; 10 s sessions get the full window, and at its far end the client notices by itself.
     */
    @ParameterizedTest(name = "session {0} ms, length {1}, cut {2}")
    @CsvSource({"4000, 0.5, 0.5", "10000, 0, 0", "10000, 1, 1"})
    void silenceConnection_clientSeesSuspendedThenReconnectedOnTheSameSession_andKeepsItsNode(
            int sessionTimeoutMs, double length, double cut) throws Exception {
        try (ClientProxies proxies = ClientProxies.to(zk.servers())) {
            CuratorFramework client = zk.newClient(builder -> builder.connectString(proxies.connectString())
                    .ensembleTracker(false)
                    .sessionTimeoutMs(sessionTimeoutMs));
            assertThat(proxies.carries(client)).isTrue();
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            client.getConnectionStateListenable().addListener((c, state) -> states.add(state));
            ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
            lock.acquire();
            String node = lock.getLockPath();
            long session = Sessions.current(client);

            long survived = Faults.silenceConnection(client, proxies, length, cut);

            assertThat(survived).isEqualTo(session);
            await().until(() -> states.contains(ConnectionState.RECONNECTED));
            assertThat(states)
                    .filteredOn(state -> state != ConnectionState.CONNECTED) // the first connection's, told late
                    .containsExactly(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
            assertThat(Sessions.current(client)).isEqualTo(session);
            assertThat(zk.newClient().checkExists().forPath(node).getEphemeralOwner())
                    .as("owner of %s", node)
                    .isEqualTo(session);
            lock.release();
            assertThat(lock.participantNodes()).isEmpty();
            client.close(); // before its proxies go, so that the close reaches the server
        }
    }

    @Test
    void silenceConnection_badFraction_throwsIllegalArgumentNamingIt() throws Exception {
        try (ClientProxies proxies = ClientProxies.to(zk.servers())) {
            CuratorFramework client = zk.newClient(
                    builder -> builder.connectString(proxies.connectString()).ensembleTracker(false));

            assertThatThrownBy(() -> Faults.silenceConnection(client, proxies, 1.5, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("length must be from 0 to 1, not 1.5");
            assertThatThrownBy(() -> Faults.silenceConnection(client, proxies, 0, -0.25))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cut must be from 0 to 1, not -0.25");
            client.close();
        }
    }

    @Test
    void silenceConnection_clientConnectedAroundItsProxies_throwsIllegalStateNamingTheAddress() throws Exception {
        try (ClientProxies proxies = ClientProxies.to(zk.servers())) {
            CuratorFramework client = zk.newClient(); // straight to the server

            assertThat(proxies.carries(client)).isFalse();
            assertThatThrownBy(() -> Faults.silenceConnection(client, proxies, 0, 0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("connected around its proxies, to ")
                    .hasMessageContaining(String.valueOf(zk.servers().port(0)));
        }
    }

    @Test
    void deleteLockNode_holdersNode_theMonitorEndsItsHoldAndTheWaiterHoldsInAnExplainedOverlap() throws Exception {
        CuratorFramework holderClient = zk.newClient();
        ZkReentrantLock holder = new ZkReentrantLock(holderClient, zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        long holderToken = holder.fencingToken();
        SafetyMonitor.Hold held =
                monitor.enter("holder", SafetyMonitor.Claim.exclusive(holder.path(), holderToken, holderClient));
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Long> acquired =
                    actor.submit(() -> waiter.acquire(Duration.ofSeconds(30)) ? waiter.fencingToken() : 0L);
            await().until(() -> waiter.participantNodes().size() == 2);
            AtomicLong told = new AtomicLong();

            String deleted = Faults.deleteLockNode(zk.newClient(), zk.path("lock"), 0, creationZxid -> {
                told.set(creationZxid);
                monitor.nodeDeleted(zk.path("lock"), creationZxid);
            });

            assertThat(deleted).isEqualTo(holder.getLockPath());
            assertThat(told.get()).isEqualTo(FencingToken.creationZxid(holderToken));
            long waiterToken = acquired.get();
            assertThat(waiterToken).as("the waiter's token").isPositive();
            SafetyMonitor.Hold next = monitor.enter(
                    "waiter", new SafetyMonitor.Claim(waiter.path(), SafetyMonitor.Mode.EXCLUSIVE, waiterToken, 2));
            assertThat(monitor.liveClaims(zk.path("lock")))
                    .extracting(SafetyMonitor.Claim::token)
                    .containsExactly(waiterToken);
            next.exit();
            actor.run(waiter::release).join();
        }
        held.exit();
        holder.release(); // its node is gone already
        SafetyReport report = monitor.report();
        assertThat(report.isClean()).as("%s", report).isTrue();
        assertThat(report.lostHolds()).isEqualTo(1);
        assertThat(report.explainedOverlaps())
                .as("the holder was inside when the waiter entered")
                .isEqualTo(1);
        assertThat(waiter.participantNodes()).isEmpty();
    }

    @Test
    void deleteLockNode_noNodeUnderThePath_throwsIllegalStateNamingThePath() {
        CuratorFramework stranger = zk.newClient();

        assertThatThrownBy(() -> Faults.deleteLockNode(stranger, zk.path("nothing"), 0, creationZxid -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no lock node to delete under " + zk.path("nothing"));
    }

    @Test
    void closeClient_whileItsThreadHolds_tellsTheSessionFirstAndItsNodeGoes() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        lock.acquire();
        String node = lock.getLockPath();
        long session = Sessions.current(client);
        monitor.enter("holder", SafetyMonitor.Claim.exclusive(lock.path(), lock.fencingToken(), client));
        List<Boolean> startedWhenTold = new CopyOnWriteArrayList<>();

        long closed = Faults.closeClient(client, sessionId -> {
            startedWhenTold.add(client.getZookeeperClient().isConnected());
            monitor.sessionEnded(sessionId);
        });

        assertThat(closed).isEqualTo(session);
        assertThat(startedWhenTold).as("told before the close, while connected").containsExactly(true);
        assertThat(monitor.liveClaims(lock.path())).isEmpty();
        CuratorFramework observer = zk.newClient();
        await().until(() -> observer.checkExists().forPath(node) == null);
    }
}
