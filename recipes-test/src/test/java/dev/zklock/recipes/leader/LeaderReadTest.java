package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code leader()} of {@link ZkLeaderLatch} and {@link ZkLeaderSelector}: the leader's id and epoch, for zklock and
 * Curator leaders, what it costs in requests, and the {@link Leader} value's checks.
 */
@Timeout(60)
final class LeaderReadTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void leader_ofALatch_isTheLeadersIdAndEpoch() throws Exception {
        String path = zk.path("latch");
        try (ZkLeaderLatch leader = new ZkLeaderLatch(zk.newClient(), path, "leader");
                ZkLeaderLatch follower = new ZkLeaderLatch(zk.newClient(), path, "follower")) {
            leader.start();
            leader.await();
            follower.start();
            await().until(() -> follower.getParticipants().size() == 2);

            ServerCounters before = zk.counters();
            Optional<Leader> seen = follower.leader();
            long requests = zk.counters().requestsSince(before);

            assertThat(seen).contains(new Leader("leader", leader.epoch()));
            System.out.printf("leader(): %d requests (a listing and a data read)%n", requests);
            assertThat(requests).isBetween(2L, 3L); // a ping may fall inside
        }
    }

    @Test
    void leader_ofACuratorLatch_isItsIdAndTheEpochOfItsNode() throws Exception {
        String path = zk.path("latch");
        CuratorFramework client = zk.newClient();
        try (LeaderLatch curator = new LeaderLatch(client, path, "curator");
                ZkLeaderLatch zklock = new ZkLeaderLatch(zk.newClient(), path, "zklock")) {
            curator.start();
            curator.await();
            zklock.start();
            await().until(() -> zklock.getParticipants().size() == 2);
            long czxid = client.checkExists().forPath(curator.getOurPath()).getCzxid();

            assertThat(zklock.leader()).contains(new Leader("curator", FencingToken.of(czxid, 0)));
        }
    }

    @Test
    void leader_ofASelector_isTheLeadersIdAndEpoch() throws Exception {
        String path = zk.path("leader");
        HeldSelector held = new HeldSelector(zk.newClient(), path, "selector");
        ZkLeaderSelector selector = held.selector;
        selector.start();
        held.awaitLeading();

        assertThat(selector.leader()).contains(new Leader("selector", selector.epoch()));

        held.endTerm();
        await().until(() -> selector.leader().isEmpty());
        selector.close();
    }

    @Test
    void leader_onAPathNoOneUses_isEmpty() throws Exception {
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), zk.path("nobody/here"), "a");

        assertThat(latch.leader()).isEmpty();
        assertThat(ZkLeaderObserver.leaderOf(zk.newClient(), zk.path("nobody/here")))
                .isEmpty();
    }

    @Test
    void leaderOf_aLatchsPath_isWhatTheLatchSays() throws Exception {
        String path = zk.path("latch");
        try (ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, "a")) {
            latch.start();
            latch.await();

            assertThat(ZkLeaderObserver.leaderOf(zk.newClient(), path)).contains(new Leader("a", latch.epoch()));
        }
        assertThatThrownBy(() -> ZkLeaderObserver.leaderOf(zk.newClient(), "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
    }

    @Test
    void leader_withBadParts_throwsNamingTheValue() {
        assertThatThrownBy(() -> new Leader(null, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("participantId");
        assertThatThrownBy(() -> new Leader("a", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("epoch 0")
                .hasMessageContaining("'a'");
        assertThatThrownBy(() -> new LeaderChanged(null, "a", 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("kind");
    }
}
