package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration's {@link LockRegistryLeaderInitiator} over the registry, on two clients of one server with 2 s
 * sessions (the server's tick is 100 ms, so it expires a session within a tick of its timeout) and a 100 ms heartbeat.
 *
 * <p>A leader's term runs from its candidate's {@code onGranted} to its {@code onRevoked}, or to its last unlock of the
 * role's lock if that comes first: Spring's initiator unlocks before it calls {@code onRevoked}, and after that unlock
 * the lock is no longer the leader's to stand behind.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>fault</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>the leader's network goes silent until the server expires its session</td><td>the leader steps down once
 *       its connection is suspended (2/3 of the session), before the server expires the session; the other leads
 *       within the session timeout after that</td><td>two terms at once; no leader for longer than the session
 *       timeout</td></tr>
 *   <tr><td>the server stops and starts again</td><td>the leader steps down while the server is down; one of the two
 *       leads within the session timeout once both clients are connected again (ZooKeeper's client
 *       takes up to about a second more to reconnect)</td><td>two terms at once</td></tr>
 *   <tr><td>the leader's application closes (initiator stopped, client closed)</td><td>the other leads within the
 *       session timeout</td><td>two terms at once</td></tr>
 * </table>
 */
@Timeout(60)
final class LeaderElectionTest {
    private static final int SESSION_MS = 2_000;
    private static final long HEARTBEAT_MS = 100;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.serverWithTick(Duration.ofMillis(100));

    private final Terms terms = new Terms();
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        nodes.forEach(Node::close);
    }

    @Test
    void leadership_whenTheLeadersSessionExpiresBehindASilentNetwork_passesWithoutOverlapWithinTheSessionTimeout()
            throws Exception {
        startNodes(true);
        Node leader = awaitLeader();

        long faultAt = System.nanoTime();
        leader.proxy.holdRequests();
        leader.proxy.holdReplies();
        Node next = awaitLeaderOtherThan(leader);

        System.out.printf(
                "session expiry: stepped down %d ms after the network went silent, next leader %d ms after, %d us"
                        + " after the old leader's onRevoked returned%n",
                TimeUnit.NANOSECONDS.toMillis(terms.endedAt(leader.id) - faultAt),
                TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - faultAt),
                terms.revokedToGrantedMicros(leader.id, next.id));
        assertThat(terms.overlaps()).isZero();
        assertThat(terms.revokedToGrantedMicros(leader.id, next.id))
                .as("the old leader's onRevoked returned before the next onGranted")
                .isPositive();
        assertThat(terms.grantedAt(next.id) - terms.endedAt(leader.id))
                .isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SESSION_MS));
        leader.proxy.resume();
    }

    /**
     * The bound the initiator needs: its leader steps down at the first heartbeat after its connection is suspended
     * (two thirds of the session timeout), and the next can lead once the server expires the session; so heartbeat,
     * unlock and {@code onRevoked} must fit in the last third, or the old leader's {@code onRevoked} still runs when the
     * next term begins. Here the old leader's {@code onRevoked} works on until the next leader is granted: allowed, the
     * next is granted while it runs (the initiator does not wait for it, and cannot: the old process is cut off), within
     * about a third of the session of the step-down. Forbidden: the next never granted.
     */
    @Test
    void leadership_whenOnRevokedOutlastsTheLastThirdOfTheSession_theNextTermBeginsWhileItRuns() throws Exception {
        startNodes(true);
        Node leader = awaitLeader();
        terms.revokeWaitsFor = new CountDownLatch(1);

        leader.proxy.holdRequests();
        leader.proxy.holdReplies();
        Node next = awaitLeaderOtherThan(leader);
        await().atMost(Duration.ofSeconds(10)).until(() -> terms.revokeReturned.containsKey(leader.id));

        long budgetMs = TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - terms.endedAt(leader.id));
        System.out.printf(
                "slow onRevoked: the next leader granted %d ms after the old leader's onRevoked began, %d us before"
                        + " it returned%n",
                budgetMs, -terms.revokedToGrantedMicros(leader.id, next.id));
        assertThat(terms.revokeReturned.get(leader.id)).isGreaterThan(terms.grantedAt(next.id));
        assertThat(budgetMs).isLessThan(SESSION_MS / 3 + 1_000); // the last third, and the expiry's ticks
        leader.proxy.resume();
    }

    /**
     * The order this initiator cannot keep: it unlocks the role's lock before it calls {@code onRevoked}, so with an
     * {@code onRevoked} that works until the next term begins, the next term does begin while it runs, on a plain
     * {@code stop()} where nothing is cut off. (zklock's {@code ZkLeaderInitiator} runs {@code onRevoked} first and
     * grants no one meanwhile: {@code ZkLeaderInitiatorTest.stop_ofTheLeader_revokesBeforeTheNextIsGranted}.)
     */
    @Test
    void stop_ofTheLeader_grantsTheNextWhileTheOldOnRevokedStillRuns() throws Exception {
        startNodes(false);
        Node leader = awaitLeader();
        terms.revokeWaitsFor = new CountDownLatch(1);

        long stoppedAt = System.nanoTime();
        leader.initiator.stop();
        Node next = awaitLeaderOtherThan(leader);
        await().atMost(Duration.ofSeconds(10)).until(() -> terms.revokeReturned.containsKey(leader.id));

        System.out.printf(
                "Spring's stop: next leader %d ms after stop(), %d us before the old leader's onRevoked returned%n",
                TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - stoppedAt),
                -terms.revokedToGrantedMicros(leader.id, next.id));
        assertThat(terms.revokedToGrantedMicros(leader.id, next.id)).isNegative();
        assertThat(terms.overlaps()).isZero();
    }

    @Test
    void leadership_whenTheServerRestarts_isNeverHeldTwiceAndComesBackWithinTheSessionTimeout() throws Exception {
        startNodes(false);
        Node leader = awaitLeader();

        zk.stopServer();
        await().atMost(Duration.ofSeconds(10)).until(() -> terms.leader() == null);
        long restartedAt = System.nanoTime();
        zk.restartServer();
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.stream()
                .allMatch(n -> n.client.getZookeeperClient().isConnected()));
        long reconnectedAt = System.nanoTime();
        Node next = awaitLeader();

        System.out.printf(
                "server restart: %s led before, %s leads %d ms after the restart, %d ms after both reconnected%n",
                leader.id,
                next.id,
                TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - restartedAt),
                TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - reconnectedAt));
        assertThat(terms.overlaps()).isZero();
        assertThat(terms.grantedAt(next.id) - reconnectedAt)
                .isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SESSION_MS));
    }

    @Test
    void leadership_whenTheLeadersApplicationCloses_passesWithoutOverlapWithinTheSessionTimeout() throws Exception {
        startNodes(false);
        Node leader = awaitLeader();

        long closedAt = System.nanoTime();
        leader.close();
        Node next = awaitLeaderOtherThan(leader);

        await().atMost(Duration.ofSeconds(10)).until(() -> terms.revokeReturned.containsKey(leader.id));
        System.out.printf(
                "leader's close: next leader %d ms after; the old leader's onRevoked returned %d us %s the next"
                        + " onGranted (the initiator unlocks before onRevoked)%n",
                TimeUnit.NANOSECONDS.toMillis(terms.grantedAt(next.id) - closedAt),
                Math.abs(terms.revokedToGrantedMicros(leader.id, next.id)),
                terms.revokedToGrantedMicros(leader.id, next.id) < 0 ? "after" : "before");
        assertThat(terms.overlaps()).isZero();
        assertThat(terms.grantedAt(next.id) - closedAt).isLessThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SESSION_MS));
    }

    private void startNodes(boolean throughProxies) throws Exception {
        for (String id : List.of("a", "b")) {
            TcpProxy proxy = ElectionClients.proxy(zk, throughProxies);
            nodes.add(new Node(id, ElectionClients.client(zk, SESSION_MS, proxy), proxy, terms));
        }
        nodes.forEach(node -> node.initiator.start());
    }

    private Node awaitLeader() {
        return node(ElectionClients.awaitLeaderOtherThan(terms::leader, null));
    }

    private Node awaitLeaderOtherThan(Node previous) {
        return node(ElectionClients.awaitLeaderOtherThan(terms::leader, previous.id));
    }

    private Node node(String id) {
        return nodes.stream().filter(n -> n.id.equals(id)).findFirst().orElseThrow();
    }

    /** One application: a client (through its own proxy, or straight), the registry, and the initiator. */
    private static final class Node implements AutoCloseable {
        final String id;
        final CuratorFramework client;
        final TcpProxy proxy; // null: connected straight to the server
        final ZkSpringLockRegistry registry;
        final LockRegistryLeaderInitiator initiator;
        private boolean closed;

        Node(String id, CuratorFramework client, TcpProxy proxy, Terms terms) {
            this.id = id;
            this.client = client;
            this.proxy = proxy;
            this.registry = ZkSpringLockRegistry.builder(client)
                    .root(zk.path("leaders"))
                    .build();
            LockRegistry<Lock> observed = key -> new TermEndingLock(registry.obtain(key), id, terms);
            this.initiator = new LockRegistryLeaderInitiator(observed, new TermCandidate(id, terms));
            SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("leader-" + id + "-");
            executor.setDaemon(true);
            initiator.setTaskExecutor(executor);
            initiator.setHeartBeatMillis(HEARTBEAT_MS);
            initiator.setBusyWaitMillis(50);
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            initiator.stop();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !initiator.getContext().isLeader());
            registry.close();
            client.close();
            if (proxy != null) {
                proxy.close();
            }
        }
    }

    /**
     * The terms of every leader: who leads, since when, how often a term began while another ran, and when each
     * candidate's {@code onRevoked} began and returned (a term's work can go on until then).
     */
    private static final class Terms {
        private final java.util.Map<String, Long> granted = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.Map<String, Long> ended = new java.util.concurrent.ConcurrentHashMap<>();
        private final java.util.Map<String, Long> revokeReturned = new java.util.concurrent.ConcurrentHashMap<>();
        private volatile CountDownLatch revokeWaitsFor; // null: onRevoked returns at once
        private String leader; // guarded by this
        private int overlaps; // guarded by this

        synchronized void granted(String id) {
            if (leader != null && !leader.equals(id)) {
                overlaps++;
            }
            leader = id;
            granted.put(id, System.nanoTime());
            CountDownLatch waiting = revokeWaitsFor;
            if (waiting != null) {
                waiting.countDown();
            }
        }

        synchronized void ended(String id) {
            if (id.equals(leader)) {
                leader = null;
                ended.put(id, System.nanoTime());
            }
        }

        /** A candidate's {@code onRevoked}: ends its term, and, if told to, works on until the next term begins. */
        void revoked(String id) throws InterruptedException {
            ended(id);
            CountDownLatch waiting = revokeWaitsFor;
            if (waiting != null) {
                assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            }
            revokeReturned.put(id, System.nanoTime());
        }

        synchronized String leader() {
            return leader;
        }

        synchronized int overlaps() {
            return overlaps;
        }

        long grantedAt(String id) {
            return granted.get(id);
        }

        long endedAt(String id) {
            return ended.get(id);
        }

        /** From the old leader's {@code onRevoked} returning to the next's {@code onGranted}; negative: they overlap. */
        long revokedToGrantedMicros(String old, String next) {
            return TimeUnit.NANOSECONDS.toMicros(granted.get(next) - revokeReturned.get(old));
        }
    }

    private record TermCandidate(String getId, Terms terms) implements Candidate {
        @Override
        public String getRole() {
            return "leader";
        }

        @Override
        public void onGranted(Context ctx) {
            terms.granted(getId);
        }

        @Override
        public void onRevoked(Context ctx) {
            try {
                terms.revoked(getId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The role's lock, ending the term at its last unlock. */
    /**
     * The role's lock, ending the term as its last unlock begins: once the unlock has sent the delete, the next leader
     * may be granted before the unlock returns, and a term ended after it would be counted as an overlap it is not.
     * Used by the initiator's one thread, so its count needs no guard.
     */
    private static final class TermEndingLock implements Lock {
        private final ZkSpringLock role;
        private final String id;
        private final Terms terms;
        private int holds; // the initiator's thread only

        TermEndingLock(ZkSpringLock role, String id, Terms terms) {
            this.role = role;
            this.id = id;
            this.terms = terms;
        }

        private boolean counted(boolean acquired) {
            if (acquired) {
                holds++;
            }
            return acquired;
        }

        @Override
        public void lock() {
            role.lock();
            holds++;
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            role.lockInterruptibly();
            holds++;
        }

        @Override
        public boolean tryLock() {
            return counted(role.tryLock());
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return counted(role.tryLock(time, unit));
        }

        @Override
        public void unlock() {
            if (holds == 1) {
                terms.ended(id);
            }
            role.unlock(); // throws, counting nothing, for a thread that does not hold
            holds--;
        }

        @Override
        public Condition newCondition() {
            return role.newCondition();
        }
    }
}
