package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.state.ConnectionState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link ZkLeaderSelector}: Curator's {@code LeaderSelector} scenarios in this project's words (a term per
 * {@code takeLeadership}, auto-requeue, interruption, the participants), zklock and Curator selectors on one path, the
 * step-down at SUSPENDED, and bad input.
 */
@Timeout(90)
final class ZkLeaderSelectorTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void takeLeadership_runsOnceAndTheMutexIsReleasedWhenItReturns() throws Exception {
        String path = zk.path("leader");
        Terms terms = new Terms();
        ZkLeaderSelector selector = new ZkLeaderSelector(zk.newClient(), path, terms);
        terms.epochOf(selector);
        selector.setId("a");
        selector.start();

        long epoch = terms.next();
        assertThat(epoch).isPositive();
        await().until(() -> selector.getParticipants().isEmpty());
        assertThat(selector.hasLeadership()).isFalse();
        assertThat(terms.taken.isEmpty()).isTrue();
        assertThat(selector.requeue()).isTrue();
        assertThat(terms.next()).isGreaterThan(epoch);
        selector.close();
    }

    @Test
    void autoRequeue_takesLeadershipAgainWithAGrowingEpoch() throws Exception {
        Terms terms = new Terms();
        ZkLeaderSelector selector = new ZkLeaderSelector(zk.newClient(), zk.path("leader"), terms);
        terms.epochOf(selector);
        selector.autoRequeue();
        selector.start();

        long last = 0;
        for (int i = 0; i < 5; i++) {
            long epoch = terms.next();
            assertThat(epoch).as("epoch of term %d", i).isGreaterThan(last);
            last = epoch;
        }
        selector.close();
        await().until(() -> selector.getParticipants().isEmpty());
    }

    /**
     * Actors: two zklock and two Curator selectors on one path, auto-requeued, each term holding a little work (a
     * count inside). Allowed: terms one after the other, of both libraries. Forbidden: two terms inside at once.
     */
    @Test
    void zklockAndCuratorSelectors_onOnePath_takeTurnsOneTermAtATime() throws Exception {
        String path = zk.path("leader");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger zklockTerms = new AtomicInteger();
        AtomicInteger curatorTerms = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(16);
        List<Closeable> selectors = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            AtomicInteger count = i % 2 == 0 ? zklockTerms : curatorTerms;
            LeaderSelectorListener listener = new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) throws Exception {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    client.checkExists().forPath(path); // a round trip inside the term
                    count.incrementAndGet();
                    inside.decrementAndGet();
                    enough.countDown();
                }
            };
            if (i % 2 == 0) {
                ZkLeaderSelector selector = new ZkLeaderSelector(zk.newClient(), path, listener);
                selector.setId("zklock-" + i);
                selector.autoRequeue();
                selector.start();
                selectors.add(selector);
            } else {
                LeaderSelector selector = new LeaderSelector(zk.newClient(), path, listener);
                selector.setId("curator-" + i);
                selector.autoRequeue();
                selector.start();
                selectors.add(selector);
            }
        }

        assertThat(enough.await(60, TimeUnit.SECONDS)).isTrue();
        ZkLeaderSelector zklock = (ZkLeaderSelector) selectors.get(0);
        assertThat(zklock.getParticipants()).extracting(Participant::getId).hasSizeBetween(1, 4);
        for (Closeable selector : selectors) {
            selector.close();
        }
        assertThat(overlaps.get()).as("terms inside at once").isZero();
        assertThat(zklockTerms.get()).isPositive();
        assertThat(curatorTerms.get()).isPositive();
        await().until(() -> zklock.getParticipants().isEmpty());
    }

    @Test
    void interruptLeadership_endsTheTermAndTheNextLeads() throws Exception {
        String path = zk.path("leader");
        Terms first = new Terms().holding();
        ZkLeaderSelector leader = new ZkLeaderSelector(zk.newClient(), path, first);
        leader.setId("first");
        first.epochOf(leader);
        leader.start();
        first.next();
        Terms second = new Terms();
        ZkLeaderSelector next = new ZkLeaderSelector(zk.newClient(), path, second);
        next.setId("second");
        next.start();
        await().until(() -> leader.getParticipants().size() == 2);
        assertThat(next.getLeader()).isEqualTo(new Participant("first", true));

        leader.interruptLeadership();

        second.next();
        assertThat(first.interrupted.get()).isEqualTo(1);
        assertThat(leader.hasLeadership()).isFalse();
        leader.close();
        next.close();
    }

    /**
     * Actors: a leader whose listener ignores connection states (no adapter), on a client through a proxy that holds
     * the server's replies back. Allowed: its takeLeadership is interrupted once the client says SUSPENDED.
     * Forbidden: the term going on through the outage (Curator's selector lets it).
     */
    @Test
    void leader_whenConnectionIsSuspended_isInterrupted() throws Exception {
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework client = zk.newClient(
                    builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(4_000));
            Terms terms = new Terms().holding().ignoringStates();
            ZkLeaderSelector selector = new ZkLeaderSelector(client, zk.path("leader"), terms);
            terms.epochOf(selector);
            selector.start();
            terms.next();

            proxy.holdReplies();

            await().atMost(30, TimeUnit.SECONDS).until(() -> terms.interrupted.get() == 1);
            assertThat(selector.hasLeadership()).isFalse();
            proxy.resume();
            await().atMost(30, TimeUnit.SECONDS)
                    .until(() -> client.getZookeeperClient().isConnected());
            selector.close();
            await().until(() -> selector.getParticipants().isEmpty());
        }
    }

    /**
     * Actors: leader L (Curator's adapter as its listener) on a client whose session the server ends, and S waiting
     * behind it. Allowed: L's takeLeadership is interrupted, and S leads with a larger epoch. Forbidden: L's term going
     * on after its client heard of the end; S leading on an epoch not above L's.
     */
    @Test
    void leader_whenSessionExpires_isInterruptedAndAnotherLeads() throws Exception {
        String path = zk.path("leader");
        CuratorFramework leaderClient = zk.newClient(builder -> builder.sessionTimeoutMs(4_000));
        Terms first = new Terms().holding();
        ZkLeaderSelector leader = new ZkLeaderSelector(leaderClient, path, first);
        first.epochOf(leader);
        leader.start();
        long epoch = first.next();
        Terms second = new Terms().holding();
        ZkLeaderSelector next = new ZkLeaderSelector(zk.newClient(), path, second);
        second.epochOf(next);
        next.start();
        await().until(() -> next.getParticipants().size() == 2);

        zk.expireSession(leaderClient);

        assertThat(second.next()).isGreaterThan(epoch);
        await().atMost(30, TimeUnit.SECONDS).until(() -> first.interrupted.get() == 1);
        assertThat(leader.hasLeadership()).isFalse();
        leader.close();
        next.close();
        await().until(() -> next.getParticipants().isEmpty());
    }

    @Test
    void badInput_throwsNamingTheValueAndLeavesNoNode() throws Exception {
        CuratorFramework client = zk.newClient();
        String path = zk.path("leader");
        Terms terms = new Terms();
        assertThatThrownBy(() -> new ZkLeaderSelector(client, path, (LeaderSelectorListener) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
        assertThatThrownBy(() -> new ZkLeaderSelector(client, "no-slash", terms))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'no-slash'");
        ZkLeaderSelector selector = new ZkLeaderSelector(client, path, terms);
        assertThatThrownBy(() -> selector.setId(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("id");
        assertThatThrownBy(selector::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT");
        assertThatThrownBy(selector::requeue)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(path);
        assertThatThrownBy(selector::epoch).isInstanceOf(IllegalStateException.class);
        selector.start();
        assertThatThrownBy(selector::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("STARTED");
        terms.next();
        selector.close();
        assertThatThrownBy(selector::requeue)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        assertThatThrownBy(selector::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
        await().until(() -> selector.getParticipants().isEmpty());
    }

    /** A listener that records each term's epoch; it returns at once, or, {@link #holding()}, waits for an interrupt. */
    /**
     * Actors: an auto-requeued selector that leads on a thread of the test's own executor, until its client is closed
     * under it. Allowed: the term ends and the selector stops trying, its executor idle after a few tasks. Forbidden: a
     * requeue after every refused acquire, without end (the partition rig: 529,000 log lines in seconds).
     */
    @Test
    void autoRequeue_whenItsClientIsClosed_stopsTrying() throws Exception {
        String path = zk.path("leader");
        CuratorFramework client = zk.newClient();
        ThreadPoolExecutor executor =
                new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
        CountDownLatch leading = new CountDownLatch(1);
        ZkLeaderSelector selector = new ZkLeaderSelector(client, path, executor, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework leader) throws Exception {
                leading.countDown();
                Thread.currentThread().join(); // until interrupted
            }
        });
        try {
            selector.autoRequeue();
            selector.start();
            assertThat(leading.await(30, TimeUnit.SECONDS)).isTrue();

            client.close();

            await().until(() ->
                    executor.getActiveCount() == 0 && executor.getQueue().isEmpty());
            assertThat(executor.getCompletedTaskCount())
                    .as("the selector's tasks")
                    .isLessThanOrEqualTo(3);
        } finally {
            selector.close();
            executor.shutdownNow();
        }
    }

    private static final class Terms extends LeaderSelectorListenerAdapter {
        final BlockingQueue<Long> taken = new LinkedBlockingQueue<>();
        final AtomicInteger interrupted = new AtomicInteger();
        private volatile ZkLeaderSelector selector;
        private volatile boolean holds;
        private volatile boolean ignoresStates;

        Terms holding() {
            holds = true;
            return this;
        }

        Terms ignoringStates() {
            ignoresStates = true;
            return this;
        }

        void epochOf(ZkLeaderSelector selector) {
            this.selector = selector;
        }

        @Override
        public void takeLeadership(CuratorFramework client) {
            ZkLeaderSelector reading = selector;
            taken.add(reading == null ? 1L : reading.epoch());
            if (holds) {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                }
            }
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {
            if (!ignoresStates) {
                super.stateChanged(client, newState);
            }
        }

        long next() throws InterruptedException {
            Long epoch = taken.poll(30, TimeUnit.SECONDS);
            assertThat(epoch).as("a term within 30 s").isNotNull();
            return epoch;
        }
    }
}
