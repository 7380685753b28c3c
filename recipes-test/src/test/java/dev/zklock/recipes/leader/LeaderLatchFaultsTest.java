package dev.zklock.recipes.leader;

import static dev.zklock.recipes.leader.LeaderEvents.listenedTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ZkLeaderLatch} under real faults: a session expired on the server, a connection that goes quiet (a TCP proxy
 * holds its bytes back), a session that ends while its participant waits, a leader's node deleted by another client.
 * The times printed are what {@code ZkLeaderLatch}'s javadoc states, measured here; nothing asserts on them.
 */
@Timeout(90)
final class LeaderLatchFaultsTest {
    private static final int SESSION_MS = 4_000;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private TcpProxy proxy;
    private CuratorFramework observer;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        observer = zk.newClient();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    /**
     * Actors: leader L (its own client), participant F behind it (another client). The server ends L's session.
     * Allowed: F leads, L is told notLeader when its client hears of the expiry and enters again behind F, then leads
     * with a larger epoch once F closes. Forbidden: L never told; L leading again on its old node.
     */
    @Test
    void leader_whenSessionExpires_stepsDownAndAnotherLeads() throws Exception {
        String path = zk.path("latch");
        CuratorFramework leaderClient = zk.newClient(builder -> builder.sessionTimeoutMs(SESSION_MS));
        ZkLeaderLatch leader = new ZkLeaderLatch(leaderClient, path, "leader");
        LeaderEvents leaderHeard = listenedTo(leader);
        leader.start();
        long firstEpoch = leaderHeard.next(true).epoch();
        ZkLeaderLatch follower = new ZkLeaderLatch(zk.newClient(), path, "follower");
        LeaderEvents followerHeard = listenedTo(follower);
        follower.start();
        await().until(() -> follower.getParticipants().size() == 2);

        long expired = System.nanoTime();
        zk.expireSession(leaderClient);

        LeaderEvents.Told followerLeads = followerHeard.next(true);
        long followerEpoch = followerLeads.epoch();
        long stepDown = leaderHeard.next(false).nanos();
        System.out.printf(
                "session expiry: the next leader in %d ms, the old leader told notLeader in %d ms%n",
                msSince(expired, followerLeads.nanos()), msSince(expired, stepDown));
        assertThat(followerEpoch).isGreaterThan(firstEpoch);
        await().until(() -> follower.getParticipants()
                .equals(List.of(new Participant("follower", true), new Participant("leader", false))));
        follower.close();
        assertThat(leaderHeard.next(true).epoch()).isGreaterThan(followerEpoch);
        leader.close();
    }

    /**
     * Actors: leader L, alone, on a client through a proxy that holds back the server's replies (its pings still reach
     * the server, so the session lives). Allowed: L is told notLeader (revoked IN_DOUBT) once its client says SUSPENDED,
     * and isLeader again after the proxy lets replies through, on the node it had, with the epoch it had, as Curator's
     * latch keeps its node (Curator's TestLeaderLatch.testSessionErrorPolicy). Forbidden: L leading through the
     * outage; L on a new node (a hand-over on every suspension).
     */
    @Test
    void leader_whenConnectionIsSuspended_stepsDownAndLeadsAgainOnItsNode() throws Exception {
        CuratorFramework client = zk.newClient(
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(SESSION_MS));
        String path = zk.path("latch");
        ZkLeaderLatch leader = new ZkLeaderLatch(client, path, "leader");
        LeaderEvents heard = listenedTo(leader);
        leader.start();
        long firstEpoch = heard.next(true).epoch();
        List<String> nodes = nodesOf(path);

        long quiet = System.nanoTime();
        proxy.holdReplies();
        long stepDown = heard.next(false).nanos();
        assertThat(leader.hasLeadership()).isFalse();
        assertThat(heard.nextEnd()).isEqualTo(new LeaderEvents.Ended(firstEpoch, TermEnd.IN_DOUBT));
        proxy.resume();
        long secondEpoch = heard.next(true).epoch();
        assertThat(heard.nextGranted()).isEqualTo(firstEpoch);
        assertThat(heard.nextGranted()).isEqualTo(secondEpoch);

        System.out.printf(
                "connection quiet: told notLeader after %d ms (two thirds of the %d ms session: %d ms)%n",
                msSince(quiet, stepDown), SESSION_MS, SESSION_MS * 2 / 3);
        assertThat(secondEpoch).isEqualTo(firstEpoch);
        assertThat(nodesOf(path)).isEqualTo(nodes);
        assertThat(leader.hasLeadership()).isTrue();
        leader.close();
    }

    /**
     * Actors: leader L on a client through a proxy, participant F behind it on a direct client. The proxy holds back
     * everything both ways, so the server hears nothing from L's session and ends it. Allowed: L is told notLeader
     * (at SUSPENDED) before F is told isLeader (after the server's expiry deleted L's node). Forbidden: F told isLeader
     * while L has not stepped down.
     */
    @Test
    void leader_whenItsConnectionIsCut_stepsDownBeforeAnotherIsGranted() throws Exception {
        String path = zk.path("latch");
        CuratorFramework leaderClient = zk.newClient(
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(SESSION_MS));
        ZkLeaderLatch leader = new ZkLeaderLatch(leaderClient, path, "leader");
        LeaderEvents leaderHeard = listenedTo(leader);
        leader.start();
        leaderHeard.next(true);
        ZkLeaderLatch follower = new ZkLeaderLatch(zk.newClient(), path, "follower");
        LeaderEvents followerHeard = listenedTo(follower);
        follower.start();
        await().until(() -> follower.getParticipants().size() == 2);

        long cut = System.nanoTime();
        proxy.holdRequests();
        proxy.holdReplies();
        long stepDown = leaderHeard.next(false).nanos();
        long granted = followerHeard.next(true).nanos();

        System.out.printf(
                "connection cut: old leader told notLeader after %d ms, next leader after %d ms: a gap of %d ms"
                        + " (session %d ms)%n",
                msSince(cut, stepDown), msSince(cut, granted), msSince(stepDown, granted), SESSION_MS);
        assertThat(stepDown).isLessThan(granted);
        proxy.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> follower.getParticipants()
                .equals(List.of(new Participant("follower", true), new Participant("leader", false))));
        follower.close();
        leaderHeard.next(true);
        leader.close();
    }

    /**
     * Actors: leader L, participant W waiting behind it on a client whose session the server ends. Allowed: W's old
     * node goes with its session, W enters again with a new node, and leads once L closes. Forbidden: W leading on no
     * node, or on its old one.
     */
    @Test
    void candidate_whoseSessionEndsWhileQueued_entersAgainWithANewNode() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch leader = new ZkLeaderLatch(zk.newClient(), path, "leader");
        leader.start();
        leader.await();
        CuratorFramework waiterClient = zk.newClient(builder -> builder.sessionTimeoutMs(SESSION_MS));
        ZkLeaderLatch waiter = new ZkLeaderLatch(waiterClient, path, "waiter");
        LeaderEvents heard = listenedTo(waiter);
        waiter.start();
        await().until(() -> nodesOf(path).size() == 2);
        String oldNode = nodesOf(path).get(1);

        zk.expireSession(waiterClient);

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<String> nodes = nodesOf(path);
            return nodes.size() == 2 && !nodes.contains(oldNode);
        });
        String newNode = nodesOf(path).get(1);
        assertThat(waiter.hasLeadership()).isFalse();
        assertThat(heard.isQuiet()).isTrue();
        long leaderEpoch = leader.epoch();
        leader.close();
        assertThat(heard.next(true).epoch()).isGreaterThan(leaderEpoch);
        assertThat(nodesOf(path)).containsExactly(newNode);
        waiter.close();
    }

    /**
     * Actors: leader L, participant F behind it, a stranger's client that deletes L's node. Allowed: F leads; L hears
     * of the delete through the watch on its own node, is told notLeader and enters again behind F. Forbidden: L
     * still saying it leads after the delete was told to it.
     */
    @Test
    void leader_whoseNodeAStrangerDeletes_stepsDownAndEntersAgain() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch leader = new ZkLeaderLatch(zk.newClient(), path, "leader");
        LeaderEvents leaderHeard = listenedTo(leader);
        leader.start();
        long leaderEpoch = leaderHeard.next(true).epoch();
        ZkLeaderLatch follower = new ZkLeaderLatch(zk.newClient(), path, "follower");
        LeaderEvents followerHeard = listenedTo(follower);
        follower.start();
        await().until(() -> nodesOf(path).size() == 2);

        observer.delete().forPath(ZKPaths.makePath(path, nodesOf(path).get(0)));

        leaderHeard.next(false);
        assertThat(leaderHeard.nextEnd()).isEqualTo(new LeaderEvents.Ended(leaderEpoch, TermEnd.LOST));
        assertThat(followerHeard.next(true).epoch()).isGreaterThan(leaderEpoch);
        await().until(() -> follower.getParticipants()
                .equals(List.of(new Participant("follower", true), new Participant("leader", false))));
        assertThat(leader.hasLeadership()).isFalse();
        follower.close();
        leaderHeard.next(true);
        leader.close();
    }

    /** The nodes under {@code path} in queue order (by the sequence at the end of each name). */
    private List<String> nodesOf(String path) throws Exception {
        try {
            return observer.getChildren().forPath(path).stream()
                    .sorted(Comparator.comparing((String name) -> name.substring(name.length() - 10)))
                    .toList();
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    private static long msSince(long startNanos, long endNanos) {
        return TimeUnit.NANOSECONDS.toMillis(endNanos - startNanos);
    }
}
