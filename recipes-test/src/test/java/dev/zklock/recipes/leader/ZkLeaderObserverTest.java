package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ZkLeaderObserver}: the order of what it tells, on its own thread; what it tells after an outage in which
 * leaders came and went; its end with its client; bad input. The extension checks after each test that no watch is
 * left on any client.
 */
@Timeout(90)
final class ZkLeaderObserverTest {
    private static final int SESSION_MS = 4_000;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: an observer that is no participant, started before the path exists; latches a, b, c, queued in that
     * order; the test closes the leader once the observer told its GRANTED. Allowed: GRANTED a, REVOKED a, GRANTED b,
     * REVOKED b, GRANTED c, REVOKED c, each with the epoch the latch had, all on one thread of the observer. Forbidden:
     * another order; a call on ZooKeeper's event thread.
     */
    @Test
    void observe_leadersClosedOneByOne_toldGrantedThenRevokedInOrder() throws Exception {
        String path = zk.path("latch");
        Changes changes = new Changes();
        try (ZkLeaderObserver observer = ZkLeaderObserver.observe(zk.newClient(), path, changes)) {
            List<ZkLeaderLatch> latches = new ArrayList<>();
            for (String id : List.of("a", "b", "c")) {
                ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, id);
                latch.start();
                latches.add(latch);
                int size = latches.size();
                await().until(() -> latch.getParticipants().size() == size);
            }
            for (ZkLeaderLatch latch : latches) {
                latch.await();
                Leader term = new Leader(latch.getId(), latch.epoch());
                assertThat(changes.next()).isEqualTo(LeaderChanged.granted(term));
                assertThat(observer.current()).contains(term);
                latch.close();
                assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(term));
            }
            assertThat(observer.current()).isEmpty();
        }
        assertThat(changes.threads).hasSize(1);
        assertThat(changes.threads.iterator().next()).startsWith("zklock-leader-observer");
        assertThat(changes.isQuiet()).isTrue();
    }

    @Test
    void observe_ofASelector_hearsItsTerms() throws Exception {
        String path = zk.path("leader");
        HeldSelector held = new HeldSelector(zk.newClient(), path, "s");
        ZkLeaderSelector selector = held.selector;
        Changes changes = new Changes();
        try (ZkLeaderObserver observer = selector.observe(changes)) {
            selector.start();
            held.awaitLeading();
            Leader term = new Leader("s", selector.epoch());

            assertThat(changes.next()).isEqualTo(LeaderChanged.granted(term));
            held.endTerm();
            assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(term));
        }
        selector.close();
    }

    /**
     * Actors: an observer on a client through a proxy that holds back the server's replies (the session lives);
     * latches first, second, third on direct clients. While the observer is cut off, first and then second close, so
     * third leads. Allowed, once the observer's client is connected again: REVOKED first, GRANTED third, then REVOKED
     * third when it closes. Forbidden: anything told of second, which led only during the outage; a GRANTED before the
     * REVOKED of the term before.
     */
    @Test
    void observe_afterAnOutage_reportsOnlyTheLeaderThatStands() throws Exception {
        String path = zk.path("latch");
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework observerClient = zk.newClient(
                    builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(SESSION_MS));
            CountDownLatch suspended = new CountDownLatch(1);
            observerClient.getConnectionStateListenable().addListener((client, state) -> {
                if (state == ConnectionState.SUSPENDED) {
                    suspended.countDown();
                }
            });
            List<ZkLeaderLatch> latches = new ArrayList<>();
            for (String id : List.of("first", "second", "third")) {
                ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, id);
                latch.start();
                latches.add(latch);
                int size = latches.size();
                await().until(() -> latch.getParticipants().size() == size);
            }
            Changes changes = new Changes();
            ZkLeaderObserver observer = ZkLeaderObserver.observe(observerClient, path, changes);
            latches.get(0).await();
            Leader first = new Leader("first", latches.get(0).epoch());
            assertThat(changes.next()).isEqualTo(LeaderChanged.granted(first));

            proxy.holdReplies();
            latches.get(0).close();
            latches.get(1).await();
            latches.get(1).close();
            latches.get(2).await();
            Leader third = new Leader("third", latches.get(2).epoch());
            assertThat(suspended.await(30, TimeUnit.SECONDS)).isTrue();
            proxy.resume();

            assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(first));
            assertThat(changes.next()).isEqualTo(LeaderChanged.granted(third));
            assertThat(observer.current()).contains(third);
            latches.get(2).close();
            assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(third));
            observer.close();
            assertThat(changes.isQuiet()).isTrue();
        }
    }

    /**
     * Actors: an observer on a client started while its server does not answer (the proxy holds the replies), so its
     * first look finds no connection; latch a leads meanwhile; then the replies go through and the client is CONNECTED
     * for the first time. Allowed: GRANTED a once the connection is up, then REVOKED a when it closes. Forbidden: nothing
     * told until some later reconnection (the partition rig, seed 30: observers told nothing for 76 s, as only
     * RECONNECTED made them look again).
     */
    @Test
    void observe_onAClientNotYetConnected_tellsTheLeaderOnceItConnects() throws Exception {
        String path = zk.path("latch");
        try (TcpProxy proxy = zk.newProxy();
                CuratorFramework client =
                        CuratorFrameworkFactory.newClient(proxy.connectString(), new RetryOneTime(100))) {
            proxy.holdReplies();
            client.start();
            Changes changes = new Changes();
            try (ZkLeaderObserver observer = ZkLeaderObserver.observe(client, path, changes)) {
                ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, "a");
                latch.start();
                latch.await();
                Leader a = new Leader("a", latch.epoch());
                assertThat(client.getZookeeperClient().isConnected()).isFalse();

                proxy.resume();

                assertThat(changes.next()).isEqualTo(LeaderChanged.granted(a));
                latch.close();
                assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(a));
            }
        }
    }

    /**
     * Actors: an observer whose session the server ends while a leads; b queued behind a. a closes once the observer's
     * client is on a new session. Allowed: REVOKED a, GRANTED b, told through the watch the observer sets on the new
     * session. Forbidden: nothing told (a watch lost with the old session and never set again).
     */
    @Test
    void observe_afterItsSessionEnds_watchesOnTheNewSession() throws Exception {
        String path = zk.path("latch");
        CuratorFramework observerClient = zk.newClient(builder -> builder.sessionTimeoutMs(SESSION_MS));
        CountDownLatch reconnected = new CountDownLatch(1);
        observerClient.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });
        ZkLeaderLatch a = new ZkLeaderLatch(zk.newClient(), path, "a");
        try (ZkLeaderLatch b = new ZkLeaderLatch(zk.newClient(), path, "b")) {
            a.start();
            a.await();
            b.start();
            await().until(() -> b.getParticipants().size() == 2);
            Changes changes = new Changes();
            try (ZkLeaderObserver observer = ZkLeaderObserver.observe(observerClient, path, changes)) {
                Leader first = new Leader("a", a.epoch());
                assertThat(changes.next()).isEqualTo(LeaderChanged.granted(first));

                zk.expireSession(observerClient);
                assertThat(reconnected.await(30, TimeUnit.SECONDS)).isTrue();
                await().until(() -> observerClient.getZookeeperClient().isConnected());
                a.close();

                assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(first));
                b.await();
                assertThat(changes.next()).isEqualTo(LeaderChanged.granted(new Leader("b", b.epoch())));
                assertThat(observer.current()).contains(new Leader("b", b.epoch()));
            }
            assertThat(changes.isQuiet()).isTrue();
        }
    }

    /**
     * Actors: an observer whose client's event thread a watcher of the test's holds up (a user's slow callback) right
     * after the observer heard its leader's node go, until the observer has given its listing up (it waits one request
     * timeout for a reply); the reply comes then, and the connection never drops. Participants a and b, nodes of the
     * latch's layout made by the test. Allowed: REVOKED a, GRANTED b, once the held-up reply comes. Forbidden: nothing
     * told (the look given up as if the connection were lost, and no RECONNECTED to ask for another: PartitionsIT saw an
     * observer two terms behind a session timeout after a heal so).
     */
    @Test
    void observe_aReplyLaterThanItsWait_looksAgainWhenItComes() throws Exception {
        String path = zk.path("latch");
        String blocker = zk.path("blocker");
        CuratorFramework nodes = zk.newClient();
        String a = nodes.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(path + "/latch-", "a".getBytes(StandardCharsets.UTF_8));
        nodes.create()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(path + "/latch-", "b".getBytes(StandardCharsets.UTF_8));
        CuratorFramework observerClient = zk.newClient(builder -> builder.sessionTimeoutMs(SESSION_MS));
        Changes changes = new Changes();
        try (ZkLeaderObserver observer = ZkLeaderObserver.observe(observerClient, path, changes)) {
            LeaderChanged first = changes.next();
            assertThat(first.participant()).isEqualTo("a");
            CountDownLatch release = new CountDownLatch(1);
            observerClient
                    .checkExists()
                    .usingWatcher((Watcher) event -> {
                        try {
                            release.await(30, TimeUnit.SECONDS); // ZooKeeper's event thread, held up
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    })
                    .forPath(blocker);

            nodes.transaction() // the observer hears a's delete, then the blocker's create holds its events up
                    .forOperations(
                            nodes.transactionOp().delete().forPath(a),
                            nodes.transactionOp().create().forPath(blocker));
            String thread = "zklock-leader-observer " + path;
            await().until(() -> inFrame(thread, "reply"));
            await().atMost(30, TimeUnit.SECONDS).until(() -> !inFrame(thread, "lookNow"));
            release.countDown();

            assertThat(changes.next()).isEqualTo(LeaderChanged.revoked(first.leader()));
            LeaderChanged granted = changes.next();
            assertThat(granted.kind()).isEqualTo(LeaderChanged.Kind.GRANTED);
            assertThat(granted.participant()).isEqualTo("b");
        }
        assertThat(changes.isQuiet()).isTrue();
    }

    /** Whether the thread named {@code name} is inside LeaderWatch's method {@code method} now. */
    private static boolean inFrame(String name, String method) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().equals(name))
                .flatMap(e -> Arrays.stream(e.getValue()))
                .anyMatch(frame -> frame.getClassName().equals(LeaderWatch.class.getName())
                        && frame.getMethodName().equals(method));
    }

    @Test
    void observe_whenTheClientCloses_stopsAndLeavesNoThread() throws Exception {
        String path = zk.path("latch");
        CuratorFramework client = zk.newClient();
        Changes changes = new Changes();
        try (ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, "a")) {
            latch.start();
            latch.await();
            ZkLeaderObserver observer = ZkLeaderObserver.observe(client, path, changes);
            changes.next();

            client.close();

            await().until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(thread -> thread.getName().equals("zklock-leader-observer " + path)));
            assertThat(observer.current()).isEmpty();
            observer.close(); // does nothing more
        }
        assertThat(changes.isQuiet()).isTrue();
    }

    @Test
    void observe_withBadInput_throwsNamingTheValueAndLeavesNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        String path = zk.path("latch");
        assertThatThrownBy(() -> ZkLeaderObserver.observe(null, path, change -> {}))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> ZkLeaderObserver.observe(client, "relative", change -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
        assertThatThrownBy(() -> ZkLeaderObserver.observe(client, path, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> ZkLeaderObserver.observe(zk.newUnstartedClient(), path, change -> {}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(path);
        assertThat(client.checkExists().forPath(path)).isNull();
    }

    /** Records each change with the thread it was told on. */
    private static final class Changes implements Consumer<LeaderChanged> {
        private final BlockingQueue<LeaderChanged> told = new LinkedBlockingQueue<>();
        final Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public void accept(LeaderChanged change) {
            threads.add(Thread.currentThread().getName());
            told.add(change);
        }

        LeaderChanged next() throws InterruptedException {
            LeaderChanged next = told.poll(30, TimeUnit.SECONDS);
            assertThat(next).as("a change within 30 s").isNotNull();
            return next;
        }

        boolean isQuiet() {
            return told.isEmpty();
        }
    }
}
