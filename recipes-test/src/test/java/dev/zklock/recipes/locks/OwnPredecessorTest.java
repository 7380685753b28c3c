package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A waiter whose node is right behind a node of its own client (nothing created between the two: its sequence is one
 * more) knows what to watch without reading the queue; only a waiter behind another session's node lists it. Counted by
 * the server ({@code mntr} packets) and at a TCP proxy (the bytes the server sends), never timed.
 */
@Timeout(180)
final class OwnPredecessorTest {
    private static final int WAITERS = 300;

    /** A listing of the queue carries every node's name, about 50 bytes each; all the rest of an acquisition, less. */
    private static final int BYTES_OF_A_NAME = 40;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Threads of one client queue on one lock object behind its holder; each create is right behind the one before, so
     * none reads the queue, and none sets a watch on the node ahead: that node's own watch, set by the waiter ahead to
     * vouch for itself, tells it (NodeWatcher.setOn). 3 requests per acquisition (create, the watch on its own node that
     * vouches for the grant with no listing and tells the waiter behind, delete) and, at the proxy, fewer bytes per
     * acquisition than the names of a tenth of the queue, where every waiter's listing would carry all of them (with
     * {@value #WAITERS} waiters, 45,000 names in all).
     */
    @Test
    void acquire_waitersOfOneClientBehindItsHolder_readNoListingAndSendThreeRequestsEach() throws Exception {
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework client = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            client.create().creatingParentsIfNeeded().forPath(zk.path("lock")); // no container reaped on the way
            ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
            AtomicInteger watching = new AtomicInteger();
            AtomicInteger listings = new AtomicInteger();
            lock.setHooks(new QueueHooks() {
                @Override
                public void entered(String lockPath, String ourNode, List<String> children) {
                    listings.incrementAndGet();
                }

                @Override
                public void watchSet(String lockPath, String ourNode, String watchedNode) {
                    watching.incrementAndGet();
                }
            });
            try (LockActor holder = LockActor.start("holder")) {
                holder.run(lock::acquire).join();
                ServerCounters before = zk.counters();
                long bytesBefore = proxy.bytesToClients();
                listings.set(0);

                List<LockActor> waiters = new ArrayList<>();
                List<CompletableFuture<Void>> done = new ArrayList<>();
                AtomicInteger inside = new AtomicInteger();
                for (int i = 0; i < WAITERS; i++) {
                    LockActor waiter = LockActor.start("waiter-" + i);
                    waiters.add(waiter);
                    done.add(waiter.run(() -> {
                        lock.acquire();
                        assertThat(inside.incrementAndGet())
                                .as("holders at once")
                                .isEqualTo(1);
                        inside.decrementAndGet();
                        lock.release();
                    }));
                }
                await().atMost(2, TimeUnit.MINUTES).until(() -> watching.get() >= WAITERS);
                holder.run(lock::release).join();
                for (CompletableFuture<Void> each : done) {
                    each.get(2, TimeUnit.MINUTES);
                }
                ServerCounters after = zk.counters();
                long bytes = proxy.bytesToClients() - bytesBefore;
                for (LockActor waiter : waiters) {
                    waiter.close();
                }

                double requests = (after.requestsSince(before) - 1) / (double) WAITERS; // less the holder's delete
                System.out.printf(
                        "[own predecessor] %d waiters of one client: %.2f requests and %d bytes per acquisition%n",
                        WAITERS, requests, bytes / WAITERS);
                assertThat(listings).as("listings sent behind a create").hasValue(0);
                assertThat(requests).isBetween(3.0, 3.05); // create, its own node's watch, delete; a ping at most
                assertThat(bytes / WAITERS).isLessThan(WAITERS / 10 * BYTES_OF_A_NAME);
            }
        }
    }

    /**
     * a1 (client A) holds, b (client B) queues behind it, then a2 (client A again): a2's node is right behind b's, not
     * behind a node of A, so a2 reads the queue to learn it must watch b's node. Outcome: b holds after a1, a2 after b.
     * Forbidden: a2 watching a1's node (it would hold beside b once a1 goes).
     */
    @Test
    void acquire_rightBehindAnotherClientsNode_listsTheQueueAndWaitsItsTurn() throws Exception {
        CuratorFramework clientA = zk.newClient();
        ZkReentrantLock lockA = new ZkReentrantLock(clientA, zk.path("lock"));
        ZkReentrantLock lockB = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        Map<String, String> watched = new ConcurrentHashMap<>();
        QueueHooks recordWatch = new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watched.put(ourNode, watchedNode);
            }
        };
        lockA.setHooks(recordWatch);
        lockB.setHooks(recordWatch);
        try (LockActor a1 = LockActor.start("a1");
                LockActor b = LockActor.start("b");
                LockActor a2 = LockActor.start("a2")) {
            a1.run(lockA::acquire).join();
            String a1Node = lockA.getParticipantNodes().iterator().next();
            CompletableFuture<Void> bHolds = b.run(lockB::acquire);
            await().until(() -> watched.size() == 1);
            CompletableFuture<Void> a2Holds = a2.run(lockA::acquire);
            await().until(() -> watched.size() == 2);
            List<String> queue = new ArrayList<>(lockA.getParticipantNodes());
            String bNode = queue.get(1);
            String a2Node = queue.get(2);

            assertThat(watched)
                    .containsEntry(nameOf(bNode), nameOf(a1Node))
                    .containsEntry(nameOf(a2Node), nameOf(bNode));
            a1.run(lockA::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            assertThat(a2Holds).isNotDone();
            b.run(lockB::release).join();
            a2Holds.get(10, TimeUnit.SECONDS);
            a2.run(lockA::release).join();
        }
    }

    /**
     * Actors: holder H, then A and B on the same client and lock object (B right behind A, A right behind H: neither
     * sets a watch of its own on the node ahead, whose own watch tells it), a stranger. Interleaving: a stranger writes
     * A's node while A and B wait (what a revocation request does); then H releases, then A. Expected: the write spends
     * A's own watch, so B sets it again (a second watch set for B) and holds once A releases. Forbidden: B left waiting
     * on a spent watch that A's delete never fires.
     */
    @Test
    void acquire_behindANodeOfItsClientWhoseDataChanges_setsTheWatchAgainAndHoldsAfterIt() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        Map<String, AtomicInteger> watchesSet = new ConcurrentHashMap<>();
        lock.setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watchesSet.computeIfAbsent(ourNode, node -> new AtomicInteger()).incrementAndGet();
            }
        });
        try (LockActor h = LockActor.start("h");
                LockActor a = LockActor.start("a");
                LockActor b = LockActor.start("b")) {
            h.run(lock::acquire).join();
            CompletableFuture<Void> aHolds = a.run(lock::acquire);
            await().until(() -> watchesSet.size() == 1);
            CompletableFuture<Void> bHolds = b.run(lock::acquire);
            await().until(() -> watchesSet.size() == 2);
            List<String> queue = new ArrayList<>(lock.getParticipantNodes());
            String aNode = queue.get(1);
            String bName = nameOf(queue.get(2));

            zk.newClient().setData().forPath(aNode, "revoke".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            await().until(() -> watchesSet.get(bName).get() == 2);
            h.run(lock::release).join();
            aHolds.get(10, TimeUnit.SECONDS);
            assertThat(bHolds).isNotDone();
            a.run(lock::release).join();
            bHolds.get(10, TimeUnit.SECONDS);
            b.run(lock::release).join();
        }
    }

    private static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
