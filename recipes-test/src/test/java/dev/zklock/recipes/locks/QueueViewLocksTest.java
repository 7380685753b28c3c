package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.InsideAtOnce;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue view on every lock builder ({@link ZkLockBuilder#queueView()}), on a real server: a lock object with local
 * hand-off, the read/write lock and a registry's locks read their queues from the view, exclude Curator's recipe of
 * the same layout on one path, and cost a create and a delete per uncontended cycle. {@code QueueViewTest} has the plain
 * lock's cases.
 */
@Timeout(60)
final class QueueViewLocksTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: two clients, each with one lock object built with a view and local hand-off, shared by three threads,
     * and a thread of Curator's {@code InterProcessMutex} on a third client, all on one path. Allowed: one holder at a
     * time; local passes within a client. Forbidden: two threads inside at once, whatever their clients.
     */
    @Test
    void localHandOff_withAView_excludesCuratorsMutexAndTheOtherClient() throws Exception {
        String path = zk.path("lock");
        List<InterProcessLock> threads = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            ZkReentrantLock shared = ZkReentrantLock.builder(zk.newClient(), path)
                    .queueView()
                    .localHandOff()
                    .build();
            for (int t = 0; t < 3; t++) {
                threads.add(shared);
            }
        }
        threads.add(new InterProcessMutex(zk.newClient(), path));

        assertThat(InsideAtOnce.most(threads, 20)).as("holders at once").isEqualTo(1);
    }

    @Test
    void localHandOff_withAView_uncontendedCycleCostsACreateAndADelete() throws Exception {
        ZkReentrantLock lock = ZkReentrantLock.builder(
                        RequestCountTest.clientWithPersistentPath(zk, zk.path("lock")), zk.path("lock"))
                .queueView()
                .localHandOff()
                .build();
        cycle(lock); // the view's addWatch and first listing

        double perCycle = RequestCountTest.cycles(zk, lock, 200).requestsPerAcquisition();
        System.out.printf("[requests] queue view + local hand-off, uncontended: %.2f requests per cycle%n", perCycle);
        assertThat(perCycle).as("create + delete, and the pings of the run").isBetween(2.0, 2.05);
    }

    /**
     * Actors: two readers on two clients with viewed read/write locks, then a writer of Curator's
     * {@code InterProcessReadWriteLock} and a viewed writer. Allowed: both readers inside at once (each waits inside
     * for the other); the writers after them, one at a time. Forbidden: a writer beside anyone.
     */
    @Test
    void readWrite_withAView_sharesAmongReadersAndExcludesWriters() throws Exception {
        String path = zk.path("rw");
        ZkReadWriteLock first = viewedReadWrite(zk.newClient(), path);
        ZkReadWriteLock second = viewedReadWrite(zk.newClient(), path);
        CountDownLatch bothIn = new CountDownLatch(2);
        try (LockActor r1 = LockActor.start("reader-1");
                LockActor r2 = LockActor.start("reader-2")) {
            CompletableFuture<Void> read1 = r1.run(() -> readBesideAnother(first, bothIn));
            CompletableFuture<Void> read2 = r2.run(() -> readBesideAnother(second, bothIn));
            read1.get();
            read2.get();
        }
        InterProcessLock curatorWriter = new InterProcessReadWriteLock(zk.newClient(), path).writeLock();

        assertThat(InsideAtOnce.most(List.of(curatorWriter, first.writeLock(), second.writeLock()), 10))
                .as("writers inside at once")
                .isEqualTo(1);
    }

    /**
     * Actors: two registries with views on two clients, two threads each on one key, and Curator's
     * {@code InterProcessMutex} on that key's path. Forbidden: two threads inside at once.
     */
    @Test
    void registry_withAView_excludesCuratorsMutexOnAKey() throws Exception {
        String base = zk.path("registry");
        List<InterProcessLock> threads = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            ZkLockRegistry registry =
                    ZkLockRegistry.builder(zk.newClient(), base).queueView().build();
            ZkReentrantLock lock = registry.obtain("orders");
            threads.add(lock);
            threads.add(lock);
        }
        threads.add(new InterProcessMutex(zk.newClient(), base + "/orders"));

        assertThat(InsideAtOnce.most(threads, 20)).as("holders at once").isEqualTo(1);
    }

    @Test
    void queueViewUnder_aRootThatIsNotThePathsParent_isRefusedNamingBoth() {
        String path = zk.path("keys") + "/orders";
        assertThatThrownBy(() -> ZkReentrantLock.builder(zk.newClient(), path).queueViewUnder(zk.path("other")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(path)
                .hasMessageContaining(zk.path("other"));
        assertThatThrownBy(() -> ZkReadWriteLock.builder(zk.newClient(), path).queueViewUnder(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("root");
    }

    /**
     * Actors: two locks under one root with {@code queueViewUnder}, on two clients, on two paths, and Curator's mutex
     * on the first path. Allowed: one holder per path. Forbidden: two inside one path at once. Each client keeps one
     * watch for both paths ({@code RegistryQueueViewTest} counts the watches of a registry, which takes the same way).
     */
    @Test
    void queueViewUnder_locksOfTwoPathsUnderOneRoot_excludeOnEachPath() throws Exception {
        String root = zk.path("keys");
        List<InterProcessLock> first = new ArrayList<>();
        List<InterProcessLock> second = new ArrayList<>();
        for (int c = 0; c < 2; c++) {
            CuratorFramework client = zk.newClient();
            first.add(ZkReentrantLock.builder(client, root + "/a")
                    .queueViewUnder(root)
                    .build());
            second.add(ZkReentrantLock.builder(client, root + "/b")
                    .queueViewUnder(root)
                    .build());
        }
        first.add(new InterProcessMutex(zk.newClient(), root + "/a"));

        assertThat(InsideAtOnce.most(first, 15)).as("holders of /a at once").isEqualTo(1);
        assertThat(InsideAtOnce.most(second, 15)).as("holders of /b at once").isEqualTo(1);
    }

    private static ZkReadWriteLock viewedReadWrite(CuratorFramework client, String path) {
        return ZkReadWriteLock.builder(client, path).queueView().build();
    }

    private static void readBesideAnother(ZkReadWriteLock lock, CountDownLatch bothIn) throws Exception {
        lock.readLock().acquire();
        try {
            bothIn.countDown();
            assertThat(bothIn.await(30, TimeUnit.SECONDS))
                    .as("the other reader inside too")
                    .isTrue();
        } finally {
            lock.readLock().release();
        }
    }

    private static void cycle(InterProcessLock lock) throws Exception {
        lock.acquire();
        lock.release();
    }
}
