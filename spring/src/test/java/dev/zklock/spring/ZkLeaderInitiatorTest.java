package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.zookeeper.leader.LeaderInitiator;

/**
 * {@link ZkLeaderInitiator}: two applications (a client and an initiator each) of one role on one server with 2 s
 * sessions (the server's tick is 100 ms).
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>step-down</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>the leader's {@code stop()} or {@code yield()}, its {@code onRevoked} held on a latch</td><td>the leader's
 *       node stands and the other is not granted while {@code onRevoked} runs; the other granted after it
 *       returns</td><td>the other's {@code onGranted} before the old {@code onRevoked} returns; two terms at
 *       once</td></tr>
 *   <tr><td>the leader's network goes silent</td><td>the leader's {@code onRevoked} (at IN_DOUBT, two thirds of the
 *       session) returns before the other's {@code onGranted} (after the server expires the session)</td><td>the
 *       other granted first; no leader within the session timeout after the step-down</td></tr>
 * </table>
 */
@Timeout(60)
final class ZkLeaderInitiatorTest {
    private static final int SESSION_MS = 2_000;
    private static final String ROLE = "billing";

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.serverWithTick(Duration.ofMillis(100));

    private final InitiatorTerms terms = new InitiatorTerms();
    private final List<Node> nodes = new ArrayList<>();
    private CuratorFramework admin; // made on first use by children()

    @AfterEach
    void tearDown() {
        terms.release();
        nodes.forEach(Node::close);
        await().atMost(Duration.ofSeconds(10)).until(() -> children().isEmpty());
    }

    @Test
    void twoApplications_electOneLeader() throws Exception {
        Node leader = electLeader(false);
        Node other = otherThan(leader);

        assertThat(leader.initiator.getContext().isLeader()).isTrue();
        assertThat(other.initiator.getContext().isLeader()).isFalse();
        assertThat(other.initiator.getContext().getRole()).isEqualTo(ROLE);
        assertThat(terms.grantedCount()).isEqualTo(1);
        assertThat(leader.initiator.getPath()).isEqualTo(zk.path("leader") + "/" + ROLE);
        assertThatThrownBy(() -> other.initiator.getContext().epoch())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(other.id)
                .hasMessageContaining(ROLE);
    }

    @Test
    void stop_ofTheLeader_revokesBeforeTheNextIsGranted() throws Exception {
        Node leader = electLeader(false);

        handOver(leader, "stop", () -> CompletableFuture.runAsync(leader.initiator::stop));

        assertThat(leader.events).containsExactly("granted " + ROLE, "revoked " + ROLE);
        assertThat(leader.initiator.isRunning()).isFalse();
    }

    @Test
    void yield_ofTheLeader_revokesBeforeTheNextIsGranted() throws Exception {
        Node leader = electLeader(false);
        Node next = otherThan(leader);
        long oldEpoch = terms.epochs.get(leader.id);

        handOver(leader, "yield", () -> {
            leader.initiator.getContext().yield();
            return CompletableFuture.completedFuture(null);
        });

        assertThat(terms.epochs.get(next.id)).isGreaterThan(oldEpoch);
        await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2); // the old leader queues again
        assertThat(leader.initiator.isRunning()).isTrue();
        assertThat(leader.initiator.getContext().isLeader()).isFalse();
    }

    /** Twenty hand-overs by yield, back and forth: every next onGranted after the old onRevoked returned. */
    @Test
    void yield_backAndForth_neverGrantsBeforeTheOldOnRevokedReturned() throws Exception {
        Node leader = electLeader(false);
        List<Long> gapsMicros = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Node next = otherThan(leader);
            leader.initiator.getContext().yield();
            awaitLeaderOtherThan(leader);
            await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);
            gapsMicros.add(terms.revokedToGrantedMicros(leader.id, next.id));
            leader = next;
        }

        List<Long> sorted = gapsMicros.stream().sorted().toList();
        System.out.printf(
                "yield x20: next onGranted after the old onRevoked returned by %d us at p50, %d us at the least, %d us"
                        + " at the most%n",
                sorted.get(10), sorted.get(0), sorted.get(19));
        assertThat(gapsMicros).allSatisfy(gap -> assertThat(gap).isPositive());
        assertThat(terms.overlaps()).isZero();
        assertThat(terms.grantedCount()).isEqualTo(21);
    }

    /**
     * Spring's ZooKeeper {@code LeaderInitiator} (a Curator {@code LeaderSelector}) and ours on one path, the
     * migration's mixed fleet: ten hand-overs, each side stepping down in turn by {@code yield()} and by
     * {@code stop()} then {@code start()}. Acceptable: one leader at a time, each next {@code onGranted} after the old
     * {@code onRevoked} returned, both sides granted, each listed by its candidate's id. Forbidden: two leaders.
     */
    @Test
    void springsZooKeeperInitiator_onOurPath_takesTurnsWithOursOneLeaderAtATime() throws Exception {
        Node ours = new Node("zklock", zk.newClient(), null, terms);
        nodes.add(ours);
        LeaderInitiator spring = new LeaderInitiator(
                zk.newClient(), new RecordingCandidate("spring", ROLE, terms), zk.path("leader") + "/");
        try {
            ours.initiator.start();
            awaitLeader();
            spring.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);
            assertThat(spring.getContext().getParticipants())
                    .extracting(participant -> participant.getId())
                    .containsExactlyInAnyOrder("zklock", "spring");
            List<String> leaders = new ArrayList<>(List.of(terms.leader()));
            List<Long> gapsMicros = new ArrayList<>();
            for (int round = 0; round < 10; round++) {
                String old = terms.leader();
                boolean byYield = round % 4 < 2; // each side yields, then each side stops and starts again
                if (old.equals("spring")) {
                    stepDown(spring.getContext()::yield, spring::stop, spring::start, byYield);
                } else {
                    stepDown(ours.initiator.getContext()::yield, ours.initiator::stop, ours.initiator::start, byYield);
                }
                String next = ElectionClients.awaitLeaderOtherThan(terms::leader, old);
                await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);
                gapsMicros.add(terms.revokedToGrantedMicros(old, next));
                leaders.add(next);
            }

            System.out.printf(
                    "Spring's initiator and ours, 10 hand-overs: leaders %s; next onGranted after the old onRevoked"
                            + " returned by %s us%n",
                    leaders, gapsMicros);
            assertThat(terms.overlaps()).as("two leaders at once").isZero();
            assertThat(gapsMicros).allSatisfy(gap -> assertThat(gap).isPositive());
            assertThat(leaders).contains("zklock", "spring");
            assertThat(terms.grantedCount()).isEqualTo(11);
        } finally {
            spring.stop();
        }
    }

    private static void stepDown(Runnable yield, Runnable stop, Runnable start, boolean byYield) {
        if (byYield) {
            yield.run();
        } else {
            stop.run();
            start.run();
        }
    }

    @Test
    void yield_ofACandidateThatDoesNotLead_doesNothing() throws Exception {
        Node leader = electLeader(false);
        Node other = otherThan(leader);

        other.initiator.getContext().yield();
        leader.initiator.stop();
        awaitLeaderOtherThan(leader);

        assertThat(terms.grantedCount()).isEqualTo(2);
        assertThat(other.initiator.getContext().isLeader()).isTrue();
    }

    @Test
    void onGranted_thatWorksUntilInterrupted_isInterruptedAtStopAndThenRevoked() throws Exception {
        CountDownLatch working = new CountDownLatch(1);
        List<String> calls = new CopyOnWriteArrayList<>();
        Candidate worker = new Candidate() {
            @Override
            public String getRole() {
                return ROLE;
            }

            @Override
            public String getId() {
                return "worker";
            }

            @Override
            public void onGranted(Context ctx) throws InterruptedException {
                calls.add("granted");
                working.countDown();
                new CountDownLatch(1).await(); // the leader's work, until its term ends
            }

            @Override
            public void onRevoked(Context ctx) {
                calls.add("revoked");
            }
        };
        ZkLeaderInitiator initiator = new ZkLeaderInitiator(zk.newClient(), worker, zk.path("leader"));
        initiator.start();
        assertThat(working.await(10, TimeUnit.SECONDS)).isTrue();

        initiator.stop();

        assertThat(calls).containsExactly("granted", "revoked");
        await().atMost(Duration.ofSeconds(10)).until(() -> children().isEmpty());
    }

    @Test
    void silentNetwork_stepsTheLeaderDownBeforeTheOtherIsGranted() throws Exception {
        Node leader = electLeader(true);
        Node next = otherThan(leader);

        long cutAt = System.nanoTime();
        leader.proxy.holdRequests();
        leader.proxy.holdReplies();
        awaitLeaderOtherThan(leader);

        long revokedMs = TimeUnit.NANOSECONDS.toMillis(terms.revokeReturned.get(leader.id) - cutAt);
        long grantedMs = TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - cutAt);
        System.out.printf(
                "silent network: the leader's onRevoked returned %d ms after the cut, the next granted %d ms after"
                        + " it: %d ms of bound%n",
                revokedMs, grantedMs, grantedMs - revokedMs);
        assertThat(terms.revokedToGrantedMicros(leader.id, next.id))
                .as("the old onRevoked returned before the next onGranted")
                .isPositive();
        assertThat(terms.overlaps()).isZero();
        assertThat(grantedMs - revokedMs).isLessThanOrEqualTo(SESSION_MS);
        leader.proxy.resume();
    }

    /**
     * A session the server ends while the connection is up leaves no gap (the latch's documented case): the next may be
     * granted before the old leader hears of it, so the epoch is what fences. Acceptable: the old leader told
     * {@code onRevoked} once, entering again, the next epoch larger. Forbidden: the old leader still leading.
     */
    @Test
    void sessionExpiry_ofTheLeader_revokesItAndTheOtherLeadsWithALargerEpoch() throws Exception {
        Node leader = electLeader(false);
        Node next = otherThan(leader);
        long oldEpoch = terms.epochs.get(leader.id);

        zk.expireSession(leader.client);
        awaitLeaderOtherThan(leader);
        await().atMost(Duration.ofSeconds(10)).until(() -> terms.revokeReturned.containsKey(leader.id));
        await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);

        System.out.printf(
                "session expiry: the next granted %d us after the old leader's onRevoked returned (negative: before)%n",
                terms.revokedToGrantedMicros(leader.id, next.id));
        assertThat(terms.epochs.get(next.id)).isGreaterThan(oldEpoch);
        assertThat(leader.initiator.getContext().isLeader()).isFalse();
        assertThat(leader.events).containsExactly("granted " + ROLE, "revoked " + ROLE);
    }

    @Test
    void onGranted_thatThrows_yieldsToTheOther() throws Exception {
        Candidate thrower = new RecordingCandidate("thrower", ROLE, terms) {
            @Override
            public void onGranted(Context ctx) {
                throw new IllegalStateException("cannot take up the work");
            }
        };
        ZkLeaderInitiator failing = new ZkLeaderInitiator(zk.newClient(), thrower, zk.path("leader"));
        failing.start();
        try {
            Node other = new Node("b", zk.newClient(), null, terms);
            nodes.add(other);
            other.initiator.start();
            awaitLeader();

            assertThat(terms.leader()).isEqualTo("b");
            assertThat(other.initiator.getContext().isLeader()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);
        } finally {
            failing.stop();
        }
    }

    @Test
    void stop_thenStartAgain_leadsAgain() throws Exception {
        Node node = new Node("a", zk.newClient(), null, terms);
        nodes.add(node);
        node.initiator.start();
        awaitLeader();
        long firstEpoch = terms.epochs.get("a");

        node.initiator.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> children().isEmpty());
        node.initiator.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> terms.grantedCount() == 2);

        assertThat(terms.epochs.get("a")).isGreaterThan(firstEpoch);
        assertThat(node.events).containsExactly("granted " + ROLE, "revoked " + ROLE, "granted " + ROLE);
    }

    @Test
    void constructor_withBadInput_failsNamingTheValue() {
        CuratorFramework client = zk.newClient();
        Candidate good = new RecordingCandidate("a", ROLE, terms);
        assertThatThrownBy(() -> new ZkLeaderInitiator(null, good))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("candidate");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, good, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("root");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, new RecordingCandidate("a", null, terms)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("getRole");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, new RecordingCandidate("a", "", terms)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("role ''");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, new RecordingCandidate("a", "x//y", terms)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/spring-integration/leader/x//y");
        assertThatThrownBy(() -> new ZkLeaderInitiator(client, good, "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative/" + ROLE + "'");
        assertThat(new ZkLeaderInitiator(client, good, "/spring/").getPath()).isEqualTo("/spring/" + ROLE);
    }

    /** The default path is Spring's ZooKeeper initiator's, read from its own constant: one election by default. */
    @Test
    void defaultRoot_isSpringsZooKeeperInitiators() throws Exception {
        Field springNamespace = LeaderInitiator.class.getDeclaredField("DEFAULT_NAMESPACE");
        springNamespace.setAccessible(true);
        ZkLeaderInitiator initiator = new ZkLeaderInitiator(zk.newClient(), new RecordingCandidate("a", ROLE, terms));
        assertThat(initiator.getPath()).isEqualTo(springNamespace.get(null) + ROLE);
    }

    @Test
    void start_onAClientNotStarted_throwsAndStaysStopped() {
        ZkLeaderInitiator initiator = new ZkLeaderInitiator(
                zk.newUnstartedClient(), new RecordingCandidate("a", ROLE, terms), zk.path("leader"));
        assertThatThrownBy(initiator::start).isInstanceOf(IllegalStateException.class);
        assertThat(initiator.isRunning()).isFalse();
        initiator.stop(); // nothing to do
    }

    /**
     * Steps the leader down with {@code stepDown} while its {@code onRevoked} is held: checks that its node stands and
     * no one leads meanwhile, then lets {@code onRevoked} return and checks that the next is granted after that.
     */
    private void handOver(Node leader, String how, Supplier<CompletableFuture<Void>> stepDown) throws Exception {
        Node next = otherThan(leader);
        terms.holdRevokes();
        long stepDownAt = System.nanoTime();
        CompletableFuture<Void> stepping = stepDown.get();
        assertThat(terms.revokeBegan.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(children())
                .as("the old leader's node stands while its onRevoked runs")
                .hasSize(2);
        assertThat(terms.leader()).isNull();
        terms.release();
        stepping.get(10, TimeUnit.SECONDS);
        awaitLeaderOtherThan(leader);

        long gapMicros = terms.revokedToGrantedMicros(leader.id, next.id);
        System.out.printf(
                "%s: next leader %d ms after %s() (its onRevoked held by the test), %d us after the old leader's"
                        + " onRevoked returned%n",
                how, TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - stepDownAt), how, gapMicros);
        assertThat(gapMicros)
                .as("the next onGranted after the old onRevoked returned")
                .isPositive();
        assertThat(terms.overlaps()).isZero();
    }

    /** Starts two applications and returns the leader once the other waits behind it. */
    private Node electLeader(boolean throughProxies) throws Exception {
        for (String id : List.of("a", "b")) {
            TcpProxy proxy = ElectionClients.proxy(zk, throughProxies);
            nodes.add(new Node(id, ElectionClients.client(zk, SESSION_MS, proxy), proxy, terms));
        }
        nodes.forEach(node -> node.initiator.start());
        Node leader = awaitLeader();
        await().atMost(Duration.ofSeconds(10)).until(() -> children().size() == 2);
        return leader;
    }

    /** The mutex nodes of the role, read by a client of the test's own, connected straight to the server. */
    private List<String> children() throws Exception {
        if (admin == null) {
            admin = zk.newClient();
        }
        String path = zk.path("leader") + "/" + ROLE;
        return admin.checkExists().forPath(path) == null
                ? List.of()
                : admin.getChildren().forPath(path);
    }

    private Node awaitLeader() {
        return node(ElectionClients.awaitLeaderOtherThan(terms::leader, null));
    }

    private void awaitLeaderOtherThan(Node previous) {
        ElectionClients.awaitLeaderOtherThan(terms::leader, previous.id);
    }

    private Node otherThan(Node node) {
        return nodes.stream().filter(n -> n != node).findFirst().orElseThrow();
    }

    private Node node(String id) {
        return nodes.stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow();
    }

    /** One application: a client (through its own proxy, or straight) and an initiator, with its events recorded. */
    private static final class Node {
        final String id;
        final CuratorFramework client;
        final TcpProxy proxy; // null: connected straight to the server
        final ZkLeaderInitiator initiator;
        final List<String> events = new CopyOnWriteArrayList<>();

        Node(String id, CuratorFramework client, TcpProxy proxy, InitiatorTerms terms) {
            this.id = id;
            this.client = client;
            this.proxy = proxy;
            this.initiator = new ZkLeaderInitiator(client, new RecordingCandidate(id, ROLE, terms), zk.path("leader"));
            initiator.setLeaderEventPublisher(new LeaderEventPublisher() {
                @Override
                public void publishOnGranted(Object source, Context context, String role) {
                    events.add("granted " + role);
                }

                @Override
                public void publishOnRevoked(Object source, Context context, String role) {
                    events.add("revoked " + role);
                }

                @Override
                public void publishOnFailedToAcquire(Object source, Context context, String role) {
                    events.add("failed " + role);
                }
            });
        }

        void close() {
            if (proxy != null) {
                proxy.resume();
            }
            initiator.stop();
            if (proxy != null) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> client.getZookeeperClient().isConnected());
            }
        }
    }
}
