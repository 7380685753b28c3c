package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Locker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the README's migration guide says of code that moves from Curator: Curator's {@code Locker} works unchanged with
 * every zklock lock, and how Curator's and zklock's multi-locks behave beside each other on the same paths while a
 * fleet moves one service at a time.
 */
@Timeout(120)
final class CuratorMigrationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.zklock.recipes.locks.LockKinds#all")
    void locker_withEveryZklockLock_takesTheLockAndReleasesItOnClose(LockKinds.Kind kind) throws Exception {
        InterProcessLock lock =
                kind.make().apply(zk.newClient(), zk.path("lock")).lock();

        try (Locker locker = new Locker(lock, 5, TimeUnit.SECONDS)) {
            assertThat(lock.isAcquiredInThisProcess()).isTrue();
        }
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        try (Locker locker = new Locker(lock)) {
            assertThat(lock.isAcquiredInThisProcess()).isTrue();
        }

        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        LockKinds.awaitNoLockNodes(zk, zk.path("lock"));
    }

    @Test
    void locker_whenTheLockIsHeldElsewhere_throwsCuratorsTimeoutExceptionAndLeavesNothing() throws Exception {
        InterProcessMutex curator = new InterProcessMutex(zk.newClient(), zk.path("lock"));
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        curator.acquire();

        assertThatThrownBy(() -> new Locker(lock, 100, TimeUnit.MILLISECONDS))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("100ms");

        assertThat(lock.participantNodes()).hasSize(1); // Curator's, alone
        curator.release();
    }

    /**
     * The way to move: give Curator's multi-lock its paths sorted, and build zklock's over zklock locks, which it takes
     * one by one in path order. Both then take the paths in one order, so neither waits for the other in a cycle.
     */
    @Test
    void multiLocks_curatorsOverSortedPathsBesideZklocksOverLocks_neverWaitOnEachOther() throws Exception {
        CuratorFramework curatorClient = zk.newClient();
        CuratorFramework zklockClient = zk.newClient();
        InterProcessLock curator = new InterProcessMultiLock(curatorClient, List.of(zk.path("a"), zk.path("b")));
        InterProcessLock zklock = new ZkMultiLock(List.of(
                new ZkReentrantLock(zklockClient, zk.path("b")), new ZkReentrantLock(zklockClient, zk.path("a"))));

        int timeouts = loopTogether(List.of(curator, zklock), 25);

        assertThat(timeouts).isZero();
    }

    /**
     * What not to do: Curator's multi-lock takes its paths one after another, and zklock's over paths enters every queue
     * at once; when zklock's enters after Curator's took its first path and before it queued for the second, each waits
     * for the other until a timeout. A gate before Curator's second member makes that interleaving happen every time.
     */
    @Test
    void multiLocks_curatorsBesideZklocksOverPaths_canWaitOnEachOtherUntilATimeout() throws Exception {
        CountDownLatch zklockQueued = new CountDownLatch(2); // Curator's second member, and the test
        InterProcessLock curator = new InterProcessMultiLock(List.of(
                new InterProcessMutex(zk.newClient(), zk.path("a")),
                ZkMultiLockTest.gated(new InterProcessMutex(zk.newClient(), zk.path("b")), zklockQueued)));
        ZkMultiLock zklock = new ZkMultiLock(zk.newClient(), List.of(zk.path("a"), zk.path("b")));
        ZkReentrantLock observerOfA = new ZkReentrantLock(zk.newClient(), zk.path("a"));
        try (LockActor curatorSide = LockActor.start("curator");
                LockActor zklockSide = LockActor.start("zklock")) {
            CompletableFuture<Boolean> curatorHolds = curatorSide.submit(() -> curator.acquire(1, TimeUnit.SECONDS));
            await().until(() -> observerOfA.participantNodes().size() == 1); // Curator's holds a
            CompletableFuture<Boolean> zklockHolds = zklockSide.submit(() -> zklock.acquire(1, TimeUnit.SECONDS));
            await().until(() -> observerOfA.participantNodes().size() == 2); // zklock's queued on a and b at once
            zklockQueued.countDown();

            assertThat(List.of(curatorHolds.get(), zklockHolds.get())).contains(false);
            if (curatorHolds.get()) {
                curatorSide.run(curator::release).join();
            }
            if (zklockHolds.get()) {
                zklockSide.run(zklock::release).join();
            }
        }
    }

    /** Each lock on its own actor loops acquire(2 s)/release; returns how many acquires timed out. */
    private static int loopTogether(List<InterProcessLock> locks, int rounds) throws Exception {
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            for (InterProcessLock lock : locks) {
                LockActor actor = LockActor.start("multi-" + actors.size());
                actors.add(actor);
                done.add(actor.run(() -> {
                    start.await();
                    for (int round = 0; round < rounds; round++) {
                        if (!lock.acquire(2, TimeUnit.SECONDS)) {
                            timeouts.incrementAndGet();
                            continue;
                        }
                        assertThat(inside.incrementAndGet())
                                .as("holders at once")
                                .isEqualTo(1);
                        inside.decrementAndGet();
                        lock.release();
                    }
                }));
            }
            start.countDown();
            for (CompletableFuture<Void> future : done) {
                future.get();
            }
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
        }
        return timeouts.get();
    }
}
