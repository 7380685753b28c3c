package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.InsideAtOnce;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lock built with {@link ZkLockBuilder#queueView()} on a real server: its requests (counted by the server,
 * as {@code RequestCountTest} counts them), its exclusion of Curator's {@code InterProcessMutex} on the same path, a
 * stranger's delete of its held node heard from the view, and the view's resync after a reconnect.
 */
@Timeout(60)
final class QueueViewTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquireAndRelease_uncontended_costTwoRequests() throws Exception {
        ZkReentrantLock lock = viewLock(RequestCountTest.clientWithPersistentPath(zk, zk.path("lock")));
        cycle(lock); // the view's addWatch and first listing

        double perCycle = RequestCountTest.cycles(zk, lock, 200).requestsPerAcquisition();
        System.out.printf("[requests] queue view, uncontended acquire+release: %.2f requests per cycle%n", perCycle);
        assertThat(perCycle).as("create + delete, and the pings of the run").isBetween(2.0, 2.05);
    }

    @Test
    void acquire_separateClientsContending_costAtMostTwoRequestsEach() throws Exception {
        List<ZkReentrantLock> locks = new ArrayList<>();
        locks.add(viewLock(RequestCountTest.clientWithPersistentPath(zk, zk.path("lock"))));
        for (int i = 1; i < 4; i++) {
            locks.add(viewLock(zk.newClient()));
        }
        for (ZkReentrantLock lock : locks) {
            cycle(lock); // each client's view: its addWatch and first listing
        }

        RequestCountTest.Measured measured = RequestCountTest.contend(zk, locks, 30);

        double perAcquisition = measured.requestsPerAcquisition();
        System.out.printf(
                "[requests] queue view, %d clients contending: %.2f requests per acquisition%n",
                locks.size(), perAcquisition);
        assertThat(perAcquisition).as("create + delete").isLessThanOrEqualTo(2.05);
    }

    /**
     * Actors: a view lock and Curator's {@code InterProcessMutex}, two threads each, on one path. Allowed: one holder at
     * a time. Forbidden: a view lock's thread and a mutex's thread inside at once.
     */
    @Test
    void acquire_besideCuratorsMutexOnOnePath_excludesIt() throws Exception {
        String path = zk.path("lock");
        List<InterProcessLock> threads = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            CuratorFramework client = zk.newClient();
            threads.add(i % 2 == 1 ? new InterProcessMutex(client, path) : viewLock(client, path));
        }
        assertThat(InsideAtOnce.most(threads, 25)).as("holders at once").isEqualTo(1);
    }

    @Test
    void heldNode_deletedByAStranger_makesTheHoldLost() throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock lock = viewLock(zk.newClient(), path);
        CuratorFramework stranger = zk.newClient();
        try (LockActor a = LockActor.start("a")) {
            a.run(lock::acquire).join();
            String node = lock.participantNodes().get(0);

            stranger.delete().forPath(node);

            await().until(() -> a.submit(lock::holdState).join().orElseThrow() == LockState.LOST);
            a.run(lock::release).join();
        }
    }

    /**
     * Actors: holder H (a plain lock), waiter W (a view lock, its client through a proxy) behind H, a third session T
     * behind W, and a stranger. Interleaving: W waits on H's node through its view; W's connection drops (its session
     * lives); the stranger deletes W's node and H releases, so T holds, and W's view misses both deletes; W reconnects.
     * Allowed: W's view lists the path again, W learns its own node is gone before it hears of H's, enters again behind
     * T and holds after T releases. Forbidden: W granted on H's delete while T is inside (a grant from the stale view,
     * or with no voucher), or W never woken (the lost deletes never made up).
     */
    @Test
    void reconnect_afterDeletesMissed_resyncsBeforeAGrant() throws Exception {
        String path = zk.path("lock");
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), path);
        ZkReentrantLock third = new ZkReentrantLock(zk.newClient(), path);
        CuratorFramework stranger = zk.newClient();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        try (TcpProxy proxy = zk.newProxy();
                LockActor h = LockActor.start("h");
                LockActor w = LockActor.start("w");
                LockActor t = LockActor.start("t")) {
            CuratorFramework waiterClient = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            ZkReentrantLock waiter = viewLock(waiterClient, path);
            List<String> watched = new CopyOnWriteArrayList<>();
            waiter.setHooks(new QueueHooks() {
                @Override
                public void watchSet(String lockPath, String ourNode, String watchedNode) {
                    watched.add(watchedNode);
                }
            });
            ConnectionCut outage = ConnectionCut.of(waiterClient, proxy);
            h.run(holder::acquire).join();
            CompletableFuture<Void> wDone = w.run(() -> {
                waiter.acquire();
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                inside.decrementAndGet();
                waiter.release();
            });
            await().until(() -> watched.size() == 1); // W waits on H's node, from its view
            CountDownLatch tLeaves = new CountDownLatch(1);
            CompletableFuture<Void> tDone = t.run(() -> {
                third.acquire();
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                tLeaves.await();
                inside.decrementAndGet();
                third.release();
            });
            await().until(() -> holder.participantNodes().size() == 3);
            List<String> queue = holder.participantNodes();
            String thirdsNode = ZKPaths.getNodeFromPath(queue.get(2));

            outage.cut();
            stranger.delete().forPath(queue.get(1)); // W's node
            h.run(holder::release).join();
            await().until(() -> inside.get() == 1); // T holds
            outage.heal();
            await().until(() -> watched.contains(thirdsNode)); // W entered again, behind T
            assertThat(wDone).isNotDone();
            tLeaves.countDown();
            tDone.get();
            wDone.get();
        }
        assertThat(most.get()).as("holders at once").isEqualTo(1);
    }

    private static ZkReentrantLock viewLock(CuratorFramework client) {
        return viewLock(client, zk.path("lock"));
    }

    private static ZkReentrantLock viewLock(CuratorFramework client, String path) {
        return ZkReentrantLock.builder(client, path).queueView().build();
    }

    private static void cycle(ZkReentrantLock lock) throws InterruptedException {
        lock.acquire();
        lock.release();
    }
}
