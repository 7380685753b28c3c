package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A held node with no watch of its own between two moments when one is set: each hold keeps a data watch on its node
 * so that another client's delete of it (an operator, a reaper, an open ACL) makes it LOST before another session can
 * hold ({@code OwnNodeWatch}). Two ways a hold went on with no such watch, each found by reading and shown here:
 *
 * <table>
 *   <caption>Outcomes once a stranger deletes the held node and another session acquires</caption>
 *   <tr><th>how the watch went missing</th><th>allowed</th><th>forbidden (before the fix)</th></tr>
 *   <tr><td>granted while the connection was down, HELD again after the reconnect (no watch was set at the grant)</td>
 *       <td>LOST before the other session holds</td><td>HELD beside the other session</td></tr>
 *   <tr><td>a data change on the node (Curator's {@code Revoker}) spent the watch while held</td>
 *       <td>LOST before the other session holds</td><td>HELD beside the other session</td></tr>
 *   <tr><td>a multi-lock's node in a queue it held before it waited on another, never watched</td>
 *       <td>the multi-lock enters again</td><td>granted beside the session that took that queue</td></tr>
 * </table>
 */
@Timeout(60)
final class VoucherGapTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private TcpProxy proxy;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    /**
     * Actors: holder H on a client through the proxy (its acquiring thread runs the hook), the test thread (the proxy),
     * a stranger, another session O. Interleaving forced: H's listing says it is first; the connection goes down before
     * H's grant, so H's hold starts IN_DOUBT; the connection comes back on the same session and the reconnect's check
     * makes it HELD; the stranger deletes H's node; O acquires.
     */
    @Test
    void holdGrantedWhileDisconnected_heldAgainAfterTheReconnect_turnsLostWhenAStrangerDeletesItsNode()
            throws Exception {
        String path = zk.path("lock");
        CuratorFramework proxied = zk.newClient(
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(8000));
        ZkReentrantLock holder = new ZkReentrantLock(proxied, path);
        AtomicLong lostAt = lostAt(holder);
        AtomicBoolean cut = new AtomicBoolean();
        CountDownLatch connectionDown = new CountDownLatch(1);
        holder.setHooks(new QueueHooks() {
            @Override
            public void entered(String lockPath, String ourNode, List<String> children) {
                if (cut.compareAndSet(false, true)) {
                    proxy.holdRequests();
                    proxy.holdReplies();
                    proxy.dropConnections();
                    await().until(() -> !proxied.getZookeeperClient().isConnected());
                    connectionDown.countDown();
                }
            }
        });
        try (LockActor h = LockActor.startPlatform("h")) { // the hook runs on a blocking acquire's own thread
            CompletableFuture<Boolean> acquired = h.submit(() -> holder.acquire(30, TimeUnit.SECONDS));
            assertThat(connectionDown.await(20, TimeUnit.SECONDS)).isTrue();
            // granted and tracked while disconnected: the acquire waits for the reconnect's verdict in Admission
            await().until(() -> waitsInAdmission(h.thread()));

            proxy.resume();

            assertThat(acquired.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(h.submit(holder::holdState).join()).contains(LockState.HELD);
            strangerDeletesAndAnotherSessionHolds(holder, path, lostAt);
            h.run(holder::release).join();
        }
    }

    /**
     * Actors: holder H, a client asking for revocation the Curator way (H's lock is not revocable, so H ignores it), a
     * stranger, another session O. Interleaving: H holds; the revoker writes H's node; the stranger deletes it; O
     * acquires.
     */
    @Test
    void heldNodeWrittenByARevoker_turnsLostWhenAStrangerDeletesIt() throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), path);
        AtomicLong lostAt = lostAt(holder);
        try (LockActor h = LockActor.start("h")) {
            h.run(holder::acquire).join();
            String node = holder.participantNodes().get(0);

            Revoker.attemptRevoke(zk.newClient(), node);

            strangerDeletesAndAnotherSessionHolds(holder, path, lostAt);
            assertThat(h.submit(holder::holdState).join()).contains(LockState.LOST);
            h.run(holder::release).join();
        }
    }

    /**
     * Actors: H holds the second path; multi-lock M (its own client) takes the first path at once and waits on the
     * second; a stranger deletes M's node on the first path; T (another session) then takes the first path; H releases.
     * Allowed: M finds its first node gone and enters again, and holds once T has released. Forbidden (before the fix):
     * M granted on H's release while T holds the first path, on a node nobody had looked at since before M's wait.
     */
    @Test
    void multiLock_whoseFirstNodeAStrangerDeletesWhileItWaits_neverHoldsBesideTheSessionThatTookIt() throws Exception {
        String first = zk.path("a");
        String second = zk.path("b");
        ZkReentrantLock holderOfSecond = new ZkReentrantLock(zk.newClient(), second);
        CuratorFramework multiClient = zk.newClient();
        ZkMultiLock multi = new ZkMultiLock(multiClient, List.of(first, second));
        ZkReentrantLock third = new ZkReentrantLock(zk.newClient(), first);
        CuratorFramework stranger = zk.newClient();
        try (LockActor h = LockActor.start("h");
                LockActor m = LockActor.start("m");
                LockActor t = LockActor.start("t")) {
            h.run(holderOfSecond::acquire).join();
            String holdersNode = holderOfSecond.participantNodes().get(0);
            CompletableFuture<Boolean> multiAcquired = m.submit(() -> multi.acquire(30, TimeUnit.SECONDS));
            long multiSession = multiClient.getZookeeperClient().getZooKeeper().getSessionId();
            await().until(() -> watchers(holdersNode).contains(multiSession)); // M's listings are read: it waits
            String multisFirstNode =
                    first + "/" + stranger.getChildren().forPath(first).get(0);

            stranger.delete().forPath(multisFirstNode);
            assertThat(t.submit(() -> third.acquire(10, TimeUnit.SECONDS)).join())
                    .isTrue();
            h.run(holderOfSecond::release).join();

            // M enters again behind T's node on the first path, or (the bug) holds beside T
            await().until(() -> multiAcquired.isDone()
                    || stranger.getChildren().forPath(first).size() == 2);
            assertThat(multiAcquired)
                    .as("M granted while T holds the first path")
                    .isNotDone();
            t.run(third::release).join();
            assertThat(multiAcquired.get(20, TimeUnit.SECONDS)).isTrue();
            m.run(multi::release).join();
        }
    }

    /** The sessions that watch {@code path} on the test's server, by its {@code wchp} four-letter word. */
    private static List<Long> watchers(String path) throws Exception {
        String[] hostPort = zk.connectString().split(":");
        String byPath = FourLetterWordMain.send4LetterWord(hostPort[0], Integer.parseInt(hostPort[1]), "wchp");
        List<Long> sessions = new java.util.ArrayList<>();
        boolean under = false;
        for (String line : byPath.split("\\R")) {
            if (!line.startsWith("\t") && !line.isBlank()) {
                under = line.trim().equals(path);
            } else if (under && line.trim().startsWith("0x")) {
                sessions.add(Long.parseUnsignedLong(line.trim().substring(2), 16));
            }
        }
        return sessions;
    }

    private static void strangerDeletesAndAnotherSessionHolds(ZkReentrantLock holder, String path, AtomicLong lostAt)
            throws Exception {
        String node = holder.participantNodes().get(0);
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), path);
        zk.newClient().delete().forPath(node);
        try (LockActor o = LockActor.start("o")) {
            assertThat(o.submit(() -> other.acquire(10, TimeUnit.SECONDS)).join())
                    .isTrue();
            long otherHolds = System.nanoTime();
            await().atMost(10, TimeUnit.SECONDS).until(() -> lostAt.get() != 0);
            assertThat(lostAt.get()).as("H told LOST before O held").isLessThanOrEqualTo(otherHolds);
            o.run(other::release).join();
        }
    }

    private static AtomicLong lostAt(ZkReentrantLock lock) {
        AtomicLong lostAt = new AtomicLong();
        lock.addStateListener(event -> {
            if (event.state() == LockState.LOST) {
                lostAt.compareAndSet(0, System.nanoTime());
            }
        });
        return lostAt;
    }

    private static boolean waitsInAdmission(Thread thread) {
        Thread.State state = thread.getState();
        return (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING)
                && Arrays.stream(thread.getStackTrace())
                        .anyMatch(frame -> frame.getClassName().endsWith(".Admission")
                                && frame.getMethodName().equals("await"));
    }
}
