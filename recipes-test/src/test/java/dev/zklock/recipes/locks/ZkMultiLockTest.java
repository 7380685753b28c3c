package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
final class ZkMultiLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private List<String> paths(String... names) {
        return java.util.Arrays.stream(names).map(zk::path).toList();
    }

    @Test
    void acquire_eightFreePaths_holdsThemAllWithOneTransactionEachWayAndAVoucherEach() throws Exception {
        List<String> paths =
                IntStream.range(0, 8).mapToObj(i -> zk.path("p" + i)).toList();
        CuratorFramework client = zk.newClient();
        for (String path : paths) {
            client.create().creatingParentsIfNeeded().forPath(path); // persistent: the test server reaps containers
        }
        ZkMultiLock lock = new ZkMultiLock(client, paths);

        ServerCounters before = zk.counters();
        lock.acquire();
        Map<String, Long> tokens = lock.fencingTokens();
        lock.release(); // its reply comes after those of the vouchers' reads, sent before it on the same session
        ServerCounters after = zk.counters();

        System.out.printf(
                "[requests] multi-lock over 8 paths: %d to acquire and release%n", after.requestsSince(before));
        // one multi of creates and one of listings (one round trip), one read per node that sets its voucher (not
        // waited for), one multi of eight deletes
        assertThat(after.requestsSince(before)).isEqualTo(2 + 8 + 1);
        assertThat(tokens).containsOnlyKeys(paths);
        assertThat(tokens.values()).hasSize(8).containsOnly(tokens.get(paths.get(0)));
        for (String path : paths) {
            assertThat(client.getChildren().forPath(path)).isEmpty();
        }
    }

    @Test
    void constructor_duplicatePaths_areCollapsedAndSorted() {
        ZkMultiLock lock = new ZkMultiLock(zk.newClient(), paths("b", "a", "b"));

        assertThat(lock.paths()).containsExactly(zk.path("a"), zk.path("b"));
    }

    @Test
    void constructor_badArguments_throwNamingTheValue() {
        CuratorFramework client = zk.newClient();

        assertThatThrownBy(() -> new ZkMultiLock(client, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one path");
        assertThatThrownBy(() -> new ZkMultiLock(client, List.of("/a", "b/")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'b/'");
        assertThatThrownBy(() -> new ZkMultiLock(null, List.of("/a")))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> new ZkMultiLock(client, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("paths");
        assertThatThrownBy(() -> new ZkMultiLock((List<InterProcessLock>) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("locks");
        assertThatThrownBy(() -> new ZkMultiLock(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one lock");
        assertThatThrownBy(() -> new ZkMultiLock(java.util.Arrays.asList(new ZkReentrantLock(client, "/a"), null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("locks[1]");
    }

    @Test
    void acquire_whenOnePathIsHeldElsewhere_timesOutAndLeavesNoNodeInAnyQueue() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("b"));
        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), paths("a", "b", "c"));
        holder.acquire();

        assertThat(multi.acquire(300, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(multi.acquire(Duration.ZERO)).isFalse();

        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("a")).participantNodes())
                .isEmpty();
        assertThat(holder.participantNodes()).hasSize(1);
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("c")).participantNodes())
                .isEmpty();
        holder.release();
        assertThat(multi.acquire(5, TimeUnit.SECONDS)).isTrue();
        multi.release();
    }

    @Test
    void acquire_whenInterruptedWhileWaiting_throwsAndLeavesNoNodeInAnyQueue() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("c"));
        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), paths("a", "b", "c"));
        holder.acquire();
        try (LockActor actor = LockActor.start("multi")) {
            CompletableFuture<Void> waiting = actor.submit(() -> {
                multi.acquire();
                return null;
            });
            await().until(() -> holder.participantNodes().size() == 2);

            actor.interrupt();

            assertThat(waiting)
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(InterruptedException.class);
        }
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("a")).participantNodes())
                .isEmpty();
        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
    }

    @Test
    void acquire_byTheHolder_isReentrantAndOthersWait() throws Exception {
        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), paths("a", "b"));
        ZkReentrantLock single = new ZkReentrantLock(zk.newClient(), zk.path("b"));

        multi.acquire();
        assertThat(multi.acquire(Duration.ZERO)).isTrue();
        assertThat(multi.getHoldCount()).isEqualTo(2);
        assertThat(single.acquire(Duration.ZERO)).isFalse();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(() -> multi.acquire(100, TimeUnit.MILLISECONDS))
                            .join())
                    .isFalse();
            assertThat(other.run(multi::release))
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .withMessageContaining(zk.path("a"));
        }
        multi.release();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        long token = multi.fencingTokens().get(zk.path("a"));
        multi.release();
        assertThat(multi.isAcquiredInThisProcess()).isFalse();
        assertThat(single.acquire(Duration.ZERO)).isTrue();
        assertThat(single.fencingToken()).isGreaterThan(token);
        single.release();
        assertThatThrownBy(multi::fencingTokens).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void acquire_twoClientsOverTheSamePathsInOppositeOrders_neverDeadlock() throws Exception {
        ZkMultiLock forward = new ZkMultiLock(zk.newClient(), paths("a", "b"));
        ZkMultiLock backward = new ZkMultiLock(zk.newClient(), paths("b", "a"));

        int timeouts = loopTogether(List.of(forward, backward), 30, Duration.ofSeconds(2));

        assertThat(timeouts).isZero();
    }

    @Test
    void acquireOverLocks_zklockMembersGivenInOppositeOrders_neverDeadlock() throws Exception {
        ZkMultiLock forward = new ZkMultiLock(List.of(
                new ZkReentrantLock(zk.newClient(), zk.path("a")), new ZkReentrantLock(zk.newClient(), zk.path("b"))));
        ZkMultiLock backward = new ZkMultiLock(List.of(
                new ZkReentrantLock(zk.newClient(), zk.path("b")), new ZkReentrantLock(zk.newClient(), zk.path("a"))));

        int timeouts = loopTogether(List.of(forward, backward), 20, Duration.ofSeconds(2));

        assertThat(timeouts).isZero();
    }

    @Test
    void curatorMultiLock_whenEachHoldsTheOthersFirstPath_deadlocksUntilATimeout() throws Exception {
        // The interleaving Curator's InterProcessMultiLock allows and ZkMultiLock excludes: each side holds its first
        // lock and waits for the other's. A gate before the second member makes the interleaving happen every time.
        CountDownLatch bothHoldFirst = new CountDownLatch(2);
        InterProcessMultiLock forward = new InterProcessMultiLock(List.of(
                new InterProcessMutex(zk.newClient(), zk.path("a")),
                gated(new InterProcessMutex(zk.newClient(), zk.path("b")), bothHoldFirst)));
        InterProcessMultiLock backward = new InterProcessMultiLock(List.of(
                new InterProcessMutex(zk.newClient(), zk.path("b")),
                gated(new InterProcessMutex(zk.newClient(), zk.path("a")), bothHoldFirst)));
        try (LockActor one = LockActor.start("forward");
                LockActor two = LockActor.start("backward")) {
            CompletableFuture<Boolean> first = one.submit(() -> forward.acquire(1, TimeUnit.SECONDS));
            CompletableFuture<Boolean> second = two.submit(() -> backward.acquire(1, TimeUnit.SECONDS));

            // Each waits for the other's first lock until its own timeout gives it back; the later one may then get
            // through, but never both: the deadlock only ends by a timeout.
            assertThat(List.of(first.get(), second.get())).contains(false);
            if (first.get()) {
                one.run(forward::release).join();
            }
            if (second.get()) {
                two.run(backward::release).join();
            }
        }
    }

    @Test
    void acquireOverLocks_whenAMemberFails_releasesWhatWasTakenAndRethrows() throws Exception {
        ZkReentrantLock a = new ZkReentrantLock(zk.newClient(), zk.path("a"));
        InterProcessLock failing = new FailingLock(true, false);
        ZkMultiLock multi = new ZkMultiLock(List.of(a, failing));

        assertThatThrownBy(multi::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("acquire failed");

        assertThat(a.isAcquiredInThisProcess()).isFalse();
        assertThat(a.participantNodes()).isEmpty();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void releaseOverLocks_whenAMemberFails_releasesTheOthersAndReportsEveryFailure() throws Exception {
        ZkReentrantLock a = new ZkReentrantLock(zk.newClient(), zk.path("a"));
        InterProcessMutex b = new InterProcessMutex(zk.newClient(), zk.path("b"));
        ZkMultiLock multi = new ZkMultiLock(List.of(new FailingLock(false, true), a, b, new FailingLock(false, true)));
        multi.acquire();

        assertThatThrownBy(multi::release)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("release failed")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));

        assertThat(a.isAcquiredInThisProcess()).isFalse();
        assertThat(b.isAcquiredInThisProcess()).isFalse();
        assertThat(a.participantNodes()).isEmpty();
    }

    @Test
    void acquireOverLocks_zklockMembers_areTakenInPathOrderWithTheirTokens() throws Exception {
        ZkReentrantLock b = new ZkReentrantLock(zk.newClient(), zk.path("b"));
        ZkExclusiveLock a = new ZkExclusiveLock(zk.newClient(), zk.path("a"));
        ZkMultiLock multi = new ZkMultiLock(List.of(b, a));

        multi.acquire();

        assertThat(multi.paths()).containsExactly(zk.path("a"), zk.path("b"));
        assertThat(multi.fencingTokens()).containsOnlyKeys(zk.path("a"), zk.path("b"));
        assertThat(multi.fencingTokens().get(zk.path("b")))
                .isGreaterThan(multi.fencingTokens().get(zk.path("a")));
        multi.release();
        assertThat(a.isAcquiredInThisProcess()).isFalse();
    }

    /** Each lock on its own actor loops acquire(timeout)/release; returns how many acquires timed out. */
    private static int loopTogether(List<ZkMultiLock> locks, int rounds, Duration timeout) throws Exception {
        AtomicInteger timeouts = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            ZkMultiLock lock = locks.get(i);
            LockActor actor = LockActor.start("multi-" + i);
            actors.add(actor);
            done.add(actor.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    if (lock.acquire(timeout)) {
                        assertThat(inside.incrementAndGet()).isEqualTo(1);
                        inside.decrementAndGet();
                        lock.release();
                    } else {
                        timeouts.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (CompletableFuture<Void> future : done) {
            future.get();
        }
        for (LockActor actor : actors) {
            actor.close();
        }
        return timeouts.get();
    }

    /**
     * A lock whose acquire first counts the gate down and waits until it opens: with a gate of two such locks, both
     * sides hold their first member by then.
     */
    static InterProcessLock gated(InterProcessLock lock, CountDownLatch gate) {
        return new InterProcessLock() {
            @Override
            public void acquire() throws Exception {
                gate.countDown();
                gate.await();
                lock.acquire();
            }

            @Override
            public boolean acquire(long time, TimeUnit unit) throws Exception {
                gate.countDown();
                gate.await();
                return lock.acquire(time, unit);
            }

            @Override
            public void release() throws Exception {
                lock.release();
            }

            @Override
            public boolean isAcquiredInThisProcess() {
                return lock.isAcquiredInThisProcess();
            }
        };
    }

    /** A member that fails on acquire or on release, as told. */
    private record FailingLock(boolean failAcquire, boolean failRelease) implements InterProcessLock {
        @Override
        public void acquire() {
            if (failAcquire) {
                throw new IllegalStateException("acquire failed");
            }
        }

        @Override
        public boolean acquire(long time, TimeUnit unit) {
            acquire();
            return true;
        }

        @Override
        public void release() {
            if (failRelease) {
                throw new IllegalStateException("release failed");
            }
        }

        @Override
        public boolean isAcquiredInThisProcess() {
            return false;
        }
    }
}
