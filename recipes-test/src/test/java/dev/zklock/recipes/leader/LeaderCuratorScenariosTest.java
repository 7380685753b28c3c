package dev.zklock.recipes.leader;

import static dev.zklock.recipes.leader.LeaderEvents.listenedTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenarios of Curator's own leader tests that the other suites here do not cover, in this project's words: an entry
 * an ACL refuses, leadership passed round from inside {@code isLeader}, a selector requeued after an interrupt, the
 * selector's deprecated executor constructor, auto-requeued selectors taking turns, and a client whose
 * {@code ConnectionStateErrorPolicy} is Curator's {@code SessionConnectionStateErrorPolicy}, which keeps a leader
 * through a suspension its session survives (the default policy's step-down at SUSPENDED is
 * {@code LeaderLatchFaultsTest}'s and {@code ZkLeaderSelectorTest}'s).
 */
@Timeout(60)
final class LeaderCuratorScenariosTest {
    private static final int ROUNDS = 3;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: an owner client whose ACL provider gives the election's parent to digest user {@code owner} only, and a
     * stranger client without that authorization whose latch enters below it. Allowed: the owner leads; the stranger's
     * create refused, told to the stranger client's unhandled-error listeners as a {@code NoAuthException}, and
     * nothing of the stranger's on the path. Forbidden: the refusal only logged.
     */
    @Test
    void latch_whoseEntryAnAclRefuses_tellsTheClientsUnhandledErrorListeners() throws Exception {
        String parent = zk.path("owned");
        List<ACL> ownerOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest("owner:secret"))));
        CuratorFramework owner =
                zk.newClient(builder -> builder.authorization("digest", "owner:secret".getBytes(StandardCharsets.UTF_8))
                        .aclProvider(new ParentOnly(parent, ownerOnly)));
        ZkLeaderLatch owned = new ZkLeaderLatch(owner, parent, "owner");
        owned.start();
        assertThat(owned.await(30, TimeUnit.SECONDS)).isTrue();
        CuratorFramework stranger = zk.newClient();
        BlockingQueue<Throwable> unhandled = new LinkedBlockingQueue<>();
        stranger.getUnhandledErrorListenable().addListener((message, e) -> unhandled.add(e));

        ZkLeaderLatch refused = new ZkLeaderLatch(stranger, parent + "/below", "stranger");
        refused.start();

        assertThat(unhandled.poll(30, TimeUnit.SECONDS)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThat(refused.hasLeadership()).isFalse();
        assertThat(owned.getParticipants()).extracting(p -> p.getId()).containsExactly("owner");
        refused.close();
        owned.close();
    }

    /**
     * Actors: three latches, each of which yields from inside its own {@code isLeader} until {@value #ROUNDS} rounds
     * are done. Allowed: the lead passed round in queue order, every latch leading {@value #ROUNDS} times; at each
     * {@code isLeader}, no other latch that says it leads. Forbidden: two latches leading at once; a yield from the
     * listener's thread that blocks it.
     */
    @Test
    void latches_yieldingFromIsLeader_passLeadershipRoundOneAtATime() throws Exception {
        String path = zk.path("latch");
        List<ZkLeaderLatch> latches = new ArrayList<>();
        List<AtomicInteger> led = new ArrayList<>();
        AtomicInteger mostAtOnce = new AtomicInteger();
        CountDownLatch allRounds = new CountDownLatch(3 * ROUNDS);
        // the first leader yields once all three are queued: one that led before the others' nodes stood would lead
        // again at once (a clean-clone build failed so: [2, 3, 4] terms)
        CountDownLatch allQueued = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) {
            ZkLeaderLatch latch = new ZkLeaderLatch(zk.newClient(), path, "p" + i);
            AtomicInteger terms = new AtomicInteger();
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    int leading = (int) latches.stream()
                            .filter(ZkLeaderLatch::hasLeadership)
                            .count();
                    mostAtOnce.accumulateAndGet(leading, Math::max);
                    terms.incrementAndGet();
                    allRounds.countDown();
                    if (allRounds.getCount() > 0) {
                        try {
                            allQueued.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        latch.yield();
                    }
                }

                @Override
                public void notLeader() {}
            });
            latches.add(latch);
            led.add(terms);
        }

        latches.forEach(ZkLeaderLatch::start);
        await().until(() -> latches.get(0).getParticipants().size() == 3);
        allQueued.countDown();

        assertThat(allRounds.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mostAtOnce.get()).as("most latches leading at once").isEqualTo(1);
        assertThat(led).extracting(AtomicInteger::get).containsOnly(ROUNDS);
        latches.forEach(ZkLeaderLatch::close);
    }

    /**
     * Actors: a selector not auto-requeued, whose term waits for an interrupt. Allowed: interruptLeadership ends the
     * term and releases the mutex; requeue enters again and leads with a larger epoch; requeue while queued or leading
     * says false. Forbidden: a second term without the requeue.
     */
    @Test
    void selector_interruptedThenRequeued_leadsAgain() throws Exception {
        String path = zk.path("leader");
        SelectorHandOverTest.Turns turns = new SelectorHandOverTest.Turns(zk.newClient(), path, "a");
        turns.selector.start();
        long first = turns.nextTerm();
        assertThat(turns.selector.requeue()).as("requeue while leading").isFalse();

        turns.selector.interruptLeadership();

        await().until(() -> turns.selector.getParticipants().isEmpty());
        assertThat(turns.epochs).isEmpty();
        assertThat(turns.selector.requeue()).isTrue();
        assertThat(turns.nextTerm()).isGreaterThan(first);
        turns.selector.close();
    }

    /**
     * Actors: a selector made with Curator's deprecated {@code (client, path, threadFactory, executor, listener)}
     * constructor on a pool of the test's, auto-requeued. Allowed: its terms on the pool's threads, one at a time; the
     * close ends the term and leaves the pool running. Forbidden: the pool shut down by the selector.
     */
    @Test
    @SuppressWarnings("deprecation")
    void selector_onTheDeprecatedExecutorConstructor_runsItsTermsOnTheExecutorAndLeavesItRunning() throws Exception {
        ThreadFactory pooled = task -> new Thread(task, "test-pool");
        ExecutorService pool = Executors.newFixedThreadPool(4, pooled);
        BlockingQueue<String> threads = new LinkedBlockingQueue<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        CountDownLatch interrupted = new CountDownLatch(1);
        ZkLeaderSelector selector = new ZkLeaderSelector(
                zk.newClient(), zk.path("leader"), pooled, pool, new LeaderSelectorListenerAdapter() {
                    @Override
                    public void takeLeadership(CuratorFramework client) {
                        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        threads.add(Thread.currentThread().getName());
                        try {
                            new CountDownLatch(1).await();
                        } catch (InterruptedException e) {
                            interrupted.countDown();
                        } finally {
                            inside.decrementAndGet();
                        }
                    }
                });
        selector.autoRequeue();
        selector.start();
        assertThat(threads.poll(30, TimeUnit.SECONDS)).isEqualTo("test-pool");

        selector.close();

        assertThat(interrupted.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mostInside.get()).isEqualTo(1);
        assertThat(pool.isShutdown()).isFalse();
        assertThat(pool.submit(() -> "still runs").get(30, TimeUnit.SECONDS)).isEqualTo("still runs");
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * Actors: three auto-requeued selectors whose terms each end at once. Allowed: every one leads, again and again,
     * one at a time, each term with a larger epoch than the one before it. Forbidden: one selector keeping the lead
     * while others wait; two terms at once.
     */
    @Test
    void selectors_autoRequeued_takeTurnsWithGrowingEpochs() throws Exception {
        String path = zk.path("leader");
        Set<String> led = ConcurrentHashMap.newKeySet();
        BlockingQueue<Long> epochs = new LinkedBlockingQueue<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<ZkLeaderSelector> selectors = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = "s" + i;
            ZkLeaderSelector[] self = new ZkLeaderSelector[1];
            self[0] = new ZkLeaderSelector(zk.newClient(), path, new LeaderSelectorListenerAdapter() {
                @Override
                public void takeLeadership(CuratorFramework client) {
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    led.add(id);
                    epochs.add(self[0].epoch());
                    inside.decrementAndGet();
                }
            });
            self[0].setId(id);
            self[0].autoRequeue();
            selectors.add(self[0]);
        }

        selectors.forEach(ZkLeaderSelector::start);

        long last = 0;
        for (int term = 0; term < 5 * selectors.size(); term++) {
            Long epoch = epochs.poll(30, TimeUnit.SECONDS);
            assertThat(epoch).as("term %d within 30 s", term).isNotNull().isGreaterThan(last);
            last = epoch;
        }
        assertThat(led).containsExactlyInAnyOrder("s0", "s1", "s2");
        assertThat(mostInside.get()).isEqualTo(1);
        selectors.forEach(ZkLeaderSelector::close);
    }

    /**
     * Actors: a latch and a selector (its listener Curator's adapter), each leading on its own path, on one client
     * with the session policy, whose connection is dropped and comes back on the same session. Allowed: SUSPENDED then
     * RECONNECTED; both leading again in the same term (same epoch); no latch listener told anything, takeLeadership
     * not interrupted. Forbidden: a step-down at SUSPENDED; a new term.
     */
    @Test
    void latchAndSelector_withTheSessionErrorPolicy_keepTheirTermsThroughASuspension() throws Exception {
        BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();
        CuratorFramework client =
                zk.newClient(builder -> builder.connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy()));
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state != ConnectionState.CONNECTED) { // its first connection, told now or a little later
                states.add(state);
            }
        });
        ZkLeaderLatch latch = new ZkLeaderLatch(client, zk.path("latch"), "a");
        LeaderEvents heard = listenedTo(latch);
        latch.start();
        long latchEpoch = heard.next(true).epoch();
        SelectorHandOverTest.Turns turns = new SelectorHandOverTest.Turns(client, zk.path("leader"), "a");
        turns.selector.start();
        long selectorEpoch = turns.nextTerm();

        zk.dropConnection(client);

        assertThat(states.poll(30, TimeUnit.SECONDS)).isEqualTo(ConnectionState.SUSPENDED);
        assertThat(states.poll(30, TimeUnit.SECONDS)).isEqualTo(ConnectionState.RECONNECTED);
        await().until(() -> latch.hasLeadership() && turns.selector.hasLeadership());
        assertThat(latch.epoch()).as("the latch's term").isEqualTo(latchEpoch);
        assertThat(turns.selector.epoch()).as("the selector's term").isEqualTo(selectorEpoch);
        assertThat(heard.isQuiet()).as("nothing told the latch's listener").isTrue();
        assertThat(turns.ended.getCount()).as("takeLeadership not interrupted").isOne();
        latch.close();
        turns.selector.close();
        assertThat(turns.ended.await(30, TimeUnit.SECONDS)).isTrue();
    }

    private static String digest(String idPassword) {
        try {
            return DigestAuthenticationProvider.generateDigest(idPassword);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Gives {@code acl} to one path and the open ACL to every other. */
    private record ParentOnly(String path, List<ACL> acl) implements ACLProvider {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }

        @Override
        public List<ACL> getAclForPath(String forPath) {
            return forPath.equals(path) ? acl : getDefaultAcl();
        }
    }
}
