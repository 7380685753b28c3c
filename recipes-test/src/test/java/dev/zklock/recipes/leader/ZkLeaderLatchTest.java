package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.EOFException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ZkLeaderLatch} on one server with no faults: Curator's own {@code LeaderLatch} scenarios (basic, close modes,
 * await with a timeout, listeners, the leader and the participants, many participants) in this project's words, the
 * epochs, and bad input.
 */
@Timeout(60)
final class ZkLeaderLatchTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void start_alone_leadsWithAnEpochAndAwaitReturns() throws Exception {
        try (ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a")) {
            latch.start();

            latch.await();

            assertThat(latch.hasLeadership()).isTrue();
            assertThat(latch.epoch()).isPositive();
            assertThat(latch.getState()).isEqualTo(LeaderLatch.State.STARTED);
            assertThat(latch.getLeader()).isEqualTo(new Participant("a", true));
        }
        assertNoNodeLeft(zk.path("latch"));
    }

    @Test
    void close_ofTheLeader_passesLeadershipToTheNext() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch first = started(zk.newClient(), path, "first");
        first.await();
        ZkLeaderLatch second = started(zk.newClient(), path, "second");
        await().until(() -> second.getParticipants().size() == 2);
        assertThat(second.hasLeadership()).isFalse();

        first.close();

        assertThat(first.hasLeadership()).isFalse();
        assertThat(first.getState()).isEqualTo(LeaderLatch.State.CLOSED);
        assertThat(second.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(second.getParticipants()).containsExactly(new Participant("second", true));
        second.close();
        assertNoNodeLeft(path);
    }

    @Test
    void close_notifyLeader_tellsTheLeaderNotLeader() throws Exception {
        ZkLeaderLatch latch =
                new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a", LeaderLatch.CloseMode.NOTIFY_LEADER);
        LeaderEvents events = new LeaderEvents(latch);
        latch.addListener(events);
        latch.start();
        events.next(true);

        latch.close();

        events.next(false);
        assertThat(events.isQuiet()).isTrue();
    }

    @Test
    void close_silent_tellsListenersNothing() throws Exception {
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a");
        LeaderEvents events = new LeaderEvents(latch);
        latch.addListener(events);
        latch.start();
        events.next(true);

        latch.close(LeaderLatch.CloseMode.SILENT);

        assertThat(latch.hasLeadership()).isFalse();
        assertThat(events.isQuiet()).isTrue();
        assertNoNodeLeft(zk.path("latch"));
    }

    @Test
    void await_withTimeout_returnsFalseWhileAnotherLeads() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch leader = started(zk.newClient(), path, "leader");
        leader.await();
        try (leader;
                ZkLeaderLatch waiter = started(zk.newClient(), path, "waiter")) {
            await().until(() -> waiter.getParticipants().size() == 2);

            assertThat(waiter.await(200, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(waiter.await(0, TimeUnit.SECONDS)).isFalse();
            assertThat(waiter.await(-1, TimeUnit.SECONDS)).isFalse();
            assertThat(leader.await(0, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(waiter::epoch)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("waiter")
                    .hasMessageContaining(path);
        }
    }

    @Test
    void await_onALatchClosedOrNeverStarted_endsAtOnce() throws Exception {
        ZkLeaderLatch latent = new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a");
        assertThatThrownBy(latent::await).isInstanceOf(EOFException.class).hasMessageContaining("LATENT");
        assertThat(latent.await(1, TimeUnit.SECONDS)).isFalse();

        ZkLeaderLatch closed = started(zk.newClient(), zk.path("latch"), "b");
        closed.close();
        assertThatThrownBy(closed::await).isInstanceOf(EOFException.class).hasMessageContaining("CLOSED");
        assertThat(closed.await(1, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void listener_onItsExecutor_hearsIsLeaderThenNotLeader() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            ZkLeaderLatch latch =
                    new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a", LeaderLatch.CloseMode.NOTIFY_LEADER);
            LeaderEvents events = new LeaderEvents(latch);
            LeaderEvents removed = new LeaderEvents(latch);
            latch.addListener(events, executor);
            latch.addListener(events, executor); // a second add is a no-op
            latch.addListener(removed);
            latch.removeListener(removed);
            latch.start();

            long epoch = events.next(true).epoch();
            latch.close();
            events.next(false);

            assertThat(epoch).isPositive();
            assertThat(events.isQuiet()).isTrue();
            assertThat(removed.isQuiet()).isTrue();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void getParticipants_listEveryIdWithTheLeaderFirst() throws Exception {
        String path = zk.path("latch");
        List<ZkLeaderLatch> latches = new ArrayList<>();
        for (String id : List.of("a", "b", "c")) {
            ZkLeaderLatch latch = started(zk.newClient(), path, id);
            latches.add(latch);
            await().until(() -> latch.getParticipants().size() == latches.size());
        }

        assertThat(latches.get(2).getParticipants())
                .containsExactly(new Participant("a", true), new Participant("b", false), new Participant("c", false));
        assertThat(latches.get(1).getLeader()).isEqualTo(new Participant("a", true));
        latches.forEach(ZkLeaderLatch::close);
    }

    @Test
    void getLeader_onAPathNoOneUses_returnsAnEmptyNonLeader() throws Exception {
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), zk.path("nobody/here"), "a");

        assertThat(latch.getLeader()).isEqualTo(new Participant("", false));
        assertThat(latch.getParticipants()).isEmpty();
    }

    /**
     * Actors: six zklock latches on one path, each started once the one before is in the queue; the test closes the
     * leader, one at a time. Allowed: each is told isLeader once, in queue order, after the one before was closed,
     * with an epoch larger than the one before. Forbidden: an isLeader while the leader before is still open; an
     * epoch that does not grow.
     */
    @Test
    void participants_closedOneByOne_leadOneAtATimeWithGrowingEpochs() throws Exception {
        String path = zk.path("latch");
        CuratorFramework client = zk.newClient();
        List<ZkLeaderLatch> latches = new ArrayList<>();
        List<LeaderEvents> events = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ZkLeaderLatch latch = new ZkLeaderLatch(i % 2 == 0 ? client : zk.newClient(), path, "p" + i);
            LeaderEvents heard = new LeaderEvents(latch);
            latch.addListener(heard);
            latch.start();
            latches.add(latch);
            events.add(heard);
            int size = latches.size();
            await().until(() -> latch.getParticipants().size() == size);
        }
        long lastEpoch = 0;
        for (int i = 0; i < latches.size(); i++) {
            long epoch = events.get(i).next(true).epoch();
            for (int j = i + 1; j < latches.size(); j++) {
                assertThat(latches.get(j).hasLeadership())
                        .as("p%d leads beside p%d", j, i)
                        .isFalse();
                assertThat(events.get(j).isQuiet())
                        .as("p%d told anything while p%d leads", j, i)
                        .isTrue();
            }
            assertThat(epoch).as("epoch of p%d", i).isGreaterThan(lastEpoch);
            lastEpoch = epoch;
            latches.get(i).close();
        }
        assertNoNodeLeft(path);
    }

    @Test
    void constructor_withBadInput_throwsNamingTheValue() {
        CuratorFramework client = zk.newClient();
        assertThatThrownBy(() -> new ZkLeaderLatch(null, "/latch"))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new ZkLeaderLatch(client, "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
        assertThatThrownBy(() -> new ZkLeaderLatch(client, "/ends/with/"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/ends/with/'");
        assertThatThrownBy(() -> new ZkLeaderLatch(client, zk.path("latch"), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("id");
        assertThatThrownBy(() -> new ZkLeaderLatch(client, zk.path("latch"), "a", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("closeMode");
        ZkLeaderLatch latch = new ZkLeaderLatch(client, zk.path("latch"), "a");
        assertThatThrownBy(() -> latch.addListener(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> latch.addListener(new LeaderEvents(latch), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("executor");
        assertThatThrownBy(() -> latch.await(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
    }

    @Test
    void start_twice_throwsNamingTheStateAndKeepsOneNode() throws Exception {
        String path = zk.path("latch");
        try (ZkLeaderLatch latch = started(zk.newClient(), path, "a")) {
            latch.await();

            assertThatThrownBy(latch::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("STARTED")
                    .hasMessageContaining(path);
            assertThat(childrenOf(path)).hasSize(1);
        }
    }

    @Test
    void close_beforeStartOrTwice_throwsNamingTheStateAndLeavesNoNode() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, "a");

        assertThatThrownBy(latch::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(path);
        assertThat(latch.getState()).isEqualTo(LeaderLatch.State.LATENT);
        assertNoNodeLeft(path);

        ZkLeaderLatch started = started(zk.newClient(), path, "b");
        started.close();
        assertThatThrownBy(started::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        assertThatThrownBy(started::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        assertNoNodeLeft(path);
    }

    @Test
    void start_onAnUnstartedClient_throwsNamingItsStateAndLeavesNoNode() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newUnstartedClient(), path, "a");

        assertThatThrownBy(latch::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(path);
        assertThat(latch.getState()).isEqualTo(LeaderLatch.State.LATENT);
        assertNoNodeLeft(path);
    }

    private static ZkLeaderLatch started(CuratorFramework client, String path, String id) {
        ZkLeaderLatch latch = new ZkLeaderLatch(client, path, id);
        latch.start();
        return latch;
    }

    /** Waits until no node is left under {@code path}: a close sends its delete without waiting for the reply. */
    private static void assertNoNodeLeft(String path) {
        await().untilAsserted(() -> assertThat(childrenOf(path)).isEmpty());
    }

    private static List<String> childrenOf(String path) throws Exception {
        CuratorFramework observer = zk.newClient();
        try {
            return observer.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
