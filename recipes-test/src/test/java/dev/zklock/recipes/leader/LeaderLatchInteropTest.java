package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * zklock's {@link ZkLeaderLatch} and Curator's {@code LeaderLatch} on one path: one election, one leader at a time.
 */
@Timeout(90)
final class LeaderLatchInteropTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: eight participants on one path, zklock and Curator in turn, each on a client of its own, each started
     * once the one before is in the queue; the test closes the leader, one at a time, and only then clears the record
     * of who leads. Allowed: each is told isLeader once, in queue order, each zklock leader with a larger epoch than
     * the zklock leader before; both libraries see the same leader and participants. Forbidden: an isLeader while
     * the one before still leads (two leaders at once).
     */
    @Test
    void zklockAndCuratorLatches_onOnePath_electOneLeaderAtATime() throws Exception {
        String path = zk.path("latch");
        AtomicReference<String> leading = new AtomicReference<>();
        AtomicInteger twoLeaders = new AtomicInteger();
        List<Closeable> latches = new ArrayList<>();
        List<LeaderEvents> events = new ArrayList<>();
        List<ZkLeaderLatch> zklock = new ArrayList<>();
        List<LeaderLatch> curator = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String id = (i % 2 == 0 ? "zklock-" : "curator-") + i;
            // One listener per latch, so the check runs before the record: Curator tells its listeners in no
            // fixed order.
            LeaderEvents heard = new LeaderEvents(null);
            LeaderLatchListener exclusive = new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    if (!leading.compareAndSet(null, id)) {
                        twoLeaders.incrementAndGet();
                    }
                    heard.isLeader();
                }

                @Override
                public void notLeader() {
                    heard.notLeader();
                }
            };
            events.add(heard);
            if (i % 2 == 0) {
                ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, id);
                heard.readEpochOf(latch);
                latch.addListener(exclusive);
                latch.start();
                latches.add(latch);
                zklock.add(latch);
            } else {
                LeaderLatch latch = new LeaderLatch(zk.newClient(), path, id);
                latch.addListener(exclusive);
                latch.start();
                latches.add(latch);
                curator.add(latch);
            }
            int size = i + 1;
            await().until(() -> zklock.get(0).getParticipants().size() == size);
        }
        assertThat(curator.get(0).getParticipants())
                .containsExactlyElementsOf(zklock.get(0).getParticipants());
        assertThat(curator.get(0).getLeader()).isEqualTo(new Participant("zklock-0", true));

        long lastEpoch = 0;
        for (int i = 0; i < latches.size(); i++) {
            long epoch = events.get(i).next(true).epoch();
            assertThat(leading.get()).isEqualTo(i % 2 == 0 ? "zklock-" + i : "curator-" + i);
            if (i % 2 == 0) {
                assertThat(epoch).as("epoch of zklock-%d", i).isGreaterThan(lastEpoch);
                lastEpoch = epoch;
            }
            int next = i + 1;
            if (next < latches.size()) {
                Object leader = next % 2 == 0
                        ? zklock.get(next / 2).getLeader()
                        : curator.get(next / 2).getLeader();
                assertThat(leader).isEqualTo(new Participant(leading.get(), true));
            }
            leading.set(null);
            latches.get(i).close();
        }
        assertThat(twoLeaders.get()).as("isLeader told while another led").isZero();
    }

    /**
     * Actors: a zklock leader on a client through a proxy, a Curator {@code LeaderLatch} waiting behind it on a direct
     * client. The proxy holds back everything both ways, so the server ends the leader's session. Allowed: the zklock
     * leader told notLeader (at SUSPENDED) before the Curator latch is told isLeader (after the expiry); the zklock
     * participant enters again behind it once its connection is back. Forbidden: the Curator latch told isLeader
     * while the zklock leader has not stepped down.
     */
    @Test
    void zklockLeaderCutOff_stepsDownBeforeTheCuratorParticipantLeads() throws Exception {
        String path = zk.path("latch");
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework cutOff = zk.newClient(
                    builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(4_000));
            ZkLeaderLatch leader = new ZkLeaderLatch(cutOff, path, "zklock");
            LeaderEvents leaderHeard = new LeaderEvents(leader);
            leader.addListener(leaderHeard);
            leader.start();
            leaderHeard.next(true);
            LeaderLatch follower = new LeaderLatch(zk.newClient(), path, "curator");
            LeaderEvents followerHeard = new LeaderEvents(null);
            follower.addListener(followerHeard);
            follower.start();
            await().until(() -> follower.getParticipants().size() == 2);

            proxy.holdRequests();
            proxy.holdReplies();
            long stepDown = leaderHeard.next(false).nanos();
            long granted = followerHeard.next(true).nanos();

            assertThat(stepDown).isLessThan(granted);
            proxy.resume();
            await().atMost(30, TimeUnit.SECONDS).until(() -> follower.getParticipants()
                    .equals(List.of(new Participant("curator", true), new Participant("zklock", false))));
            follower.close();
            leaderHeard.next(true);
            leader.close();
        }
    }
}
