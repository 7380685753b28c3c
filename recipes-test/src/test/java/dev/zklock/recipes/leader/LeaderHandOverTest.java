package dev.zklock.recipes.leader;

import static dev.zklock.recipes.leader.LeaderEvents.listenedTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful hand-over of {@link ZkLeaderLatch}: {@code yield()}, {@code close()} and the shutdown hook. The times printed
 * are what {@code ZkLeaderLatch}'s javadoc states, measured here on one machine; nothing asserts on them.
 */
@Timeout(90)
final class LeaderHandOverTest {
    private static final int HAND_OVERS = 20;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: leader a, participant b behind it, each on its own client. a yields. Allowed: a told notLeader (its term
     * revoked as YIELDED, and at its close that notifies as CLOSED, each with the term's epoch), b told
     * isLeader with a larger epoch, a queued behind b, and a leading again once b closes. Forbidden: a leading on; b
     * leading while a has not stepped down.
     */
    @Test
    void yield_ofTheLeader_passesLeadershipToTheNext() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch a = new ZkLeaderLatch(zk.newClient(), path, "a");
        LeaderEvents aHeard = listenedTo(a);
        a.start();
        long aEpoch = aHeard.next(true).epoch();
        ZkLeaderLatch b = new ZkLeaderLatch(zk.newClient(), path, "b");
        LeaderEvents bHeard = listenedTo(b);
        b.start();
        await().until(() -> b.getParticipants().size() == 2);

        a.yield();

        assertThat(a.hasLeadership()).isFalse();
        long stepDown = aHeard.next(false).nanos();
        assertThat(aHeard.nextGranted()).isEqualTo(aEpoch);
        assertThat(aHeard.nextEnd()).isEqualTo(new LeaderEvents.Ended(aEpoch, TermEnd.YIELDED));
        LeaderEvents.Told bLeads = bHeard.next(true);
        assertThat(stepDown).isLessThan(bLeads.nanos());
        assertThat(bLeads.epoch()).isGreaterThan(aEpoch);
        await().until(() ->
                a.getParticipants().equals(List.of(new Participant("b", true), new Participant("a", false))));
        b.yield(); // b queues behind a
        long aAgain = aHeard.next(true).epoch();
        assertThat(aAgain).isGreaterThan(bLeads.epoch());
        assertThat(aHeard.nextGranted()).isEqualTo(aAgain);
        a.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
        assertThat(aHeard.nextEnd()).isEqualTo(new LeaderEvents.Ended(aAgain, TermEnd.CLOSED));
        b.close();
    }

    @Test
    void yield_ofALatchAlone_leadsAgainWithALargerEpoch() throws Exception {
        ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), zk.path("latch"), "a");
        LeaderEvents heard = listenedTo(latch);
        assertThatThrownBy(latch::yield)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(zk.path("latch"));
        latch.start();
        long first = heard.next(true).epoch();

        latch.yield();

        heard.next(false);
        assertThat(heard.next(true).epoch()).isGreaterThan(first);
        latch.close();
        assertThatThrownBy(latch::yield)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    /**
     * Measures the hand-over: the time from {@code close()} (a new participant queued behind each leader), then from
     * {@code yield()} (two participants passing leadership back and forth), to the next participant's
     * {@code isLeader}. Each is one delete, whose watch event grants the next with no request of its own.
     */
    @Test
    void closeAndYield_passLeadershipOnOneDeleteEach() throws Exception {
        String path = zk.path("latch");
        long[] afterClose = new long[HAND_OVERS];
        ZkLeaderLatch leader = new ZkLeaderLatch(zk.newClient(), path, "p0");
        leader.start();
        leader.await();
        CuratorFramework[] clients = {zk.newClient(), zk.newClient()};
        for (int i = 0; i < HAND_OVERS; i++) {
            ZkLeaderLatch next = new ZkLeaderLatch(clients[i % 2], path, "p" + (i + 1));
            LeaderEvents nextHeard = listenedTo(next);
            next.start();
            await().until(() -> next.getParticipants().size() == 2);
            long start = System.nanoTime();
            leader.close();
            afterClose[i] = nextHeard.next(true).nanos() - start;
            leader = next;
        }
        ZkLeaderLatch other = new ZkLeaderLatch(zk.newClient(), path, "other");
        List<LeaderEvents> heard = new ArrayList<>(List.of(listenedTo(leader), listenedTo(other)));
        List<ZkLeaderLatch> pair = List.of(leader, other);
        other.start();
        await().until(() -> other.getParticipants().size() == 2);
        long[] afterYield = new long[HAND_OVERS];
        for (int i = 0; i < HAND_OVERS; i++) {
            int from = i % 2;
            LeaderEvents next = heard.get(1 - from);
            ZkLeaderLatch yielding = pair.get(from);
            long start = System.nanoTime();
            yielding.yield();
            afterYield[i] = next.next(true).nanos() - start;
            heard.get(from).next(false);
            await().until(() -> yielding.getParticipants().size() == 2);
        }

        System.out.printf(
                "hand-over to the next isLeader: after close() %s, after yield() %s (p50 and max of %d)%n",
                p50AndMax(afterClose), p50AndMax(afterYield), HAND_OVERS);
        pair.forEach(ZkLeaderLatch::close);
    }

    /**
     * Actors: leader a with a shutdown hook, participant b behind it. The test runs a's hook as the JVM would at exit.
     * Allowed: a closed, its node's delete answered before the hook returns, b leading, the hook unregistered; and a
     * latch closed before exit leaves no hook registered. Forbidden: a hook left registered after the close.
     */
    @Test
    void closeOnShutdown_hookClosesTheLatchAndCloseRemovesIt() throws Exception {
        String path = zk.path("latch");
        ZkLeaderLatch a = new ZkLeaderLatch(zk.newClient(), path, "a").closeOnShutdown();
        a.start();
        a.await();
        ZkLeaderLatch b = new ZkLeaderLatch(zk.newClient(), path, "b");
        b.start();
        await().until(() -> b.getParticipants().size() == 2);
        Thread hook = a.shutdownHook();

        hook.run();

        assertThat(a.getParticipants()).containsExactly(new Participant("b", true));
        assertThat(b.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(Runtime.getRuntime().removeShutdownHook(hook))
                .as("hook still registered")
                .isFalse();

        ZkLeaderLatch c = new ZkLeaderLatch(zk.newClient(), path, "c").closeOnShutdown();
        c.closeOnShutdown(); // a second call does nothing
        Thread cHook = c.shutdownHook();
        c.start();
        c.close();
        assertThat(c.shutdownHook()).isNull();
        assertThat(Runtime.getRuntime().removeShutdownHook(cHook))
                .as("hook still registered")
                .isFalse();
        assertThatThrownBy(c::closeOnShutdown)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED")
                .hasMessageContaining(path);
        b.close();
    }

    private static String p50AndMax(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return String.format("%.2f / %.2f ms", sorted[sorted.length / 2] / 1e6, sorted[sorted.length - 1] / 1e6);
    }
}
