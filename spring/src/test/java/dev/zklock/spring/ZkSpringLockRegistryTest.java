package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStates;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The registry's contract against a real server: keys and paths, reentrancy per thread, local hand-off on and off,
 * {@code executeLocked}, {@code expireUnusedOlderThan} and the forgetting of idle locks, time to live, its default and
 * its renewal, and bad input. Every test ends with no lock node of its sessions left ({@link ZooKeeperExtension}).
 */
@Timeout(60)
final class ZkSpringLockRegistryTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static ZkSpringLockRegistry registry(CuratorFramework client) {
        return ZkSpringLockRegistry.builder(client).root(zk.path("locks")).build();
    }

    @Test
    void obtain_defaultRoot_mapsKeysToSpringsDefaultPaths() {
        try (ZkSpringLockRegistry registry = new ZkSpringLockRegistry(zk.newClient())) {
            ZkSpringLock lock = registry.obtain("orders-42");

            assertThat(lock.path()).isEqualTo("/SpringIntegration-LockRegistry/orders-42");
            assertThat(registry.pathOf("a/b")).isEqualTo("/SpringIntegration-LockRegistry/a/b");
            assertThat(registry.obtain("orders-42")).isSameAs(lock);
        }
    }

    @Test
    void obtain_badKey_throwsNamingItAndCreatesNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        try (ZkSpringLockRegistry registry = registry(client)) {
            assertThatThrownBy(() -> registry.obtain(42))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("java.lang.Integer")
                    .hasMessageContaining("42");
            assertThatThrownBy(() -> registry.obtain(""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock key ''");
            assertThatThrownBy(() -> registry.obtain("a//b"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'a//b'");
            assertThatThrownBy(() -> registry.obtain(null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("lockKey");
            assertThatThrownBy(() -> registry.obtain("k").lock(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT0S");
            assertThatThrownBy(() -> registry.obtain("k").tryLock(Duration.ofSeconds(1), Duration.ofMillis(-5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT-0.005S");
            assertThatThrownBy(() -> ZkSpringLockRegistry.builder(client).root("no-slash"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'no-slash'");
            assertThatThrownBy(() -> ZkSpringLockRegistry.builder(client)
                            .localHandOff(false)
                            .keepIdle(Duration.ofMillis(5))
                            .build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("PT0.005S");
            assertThat(registry.size()).isEqualTo(1); // "k", obtained before its bad ttl was refused
        }
        assertThat(client.checkExists().forPath(zk.path("locks"))).isNull();
    }

    @Test
    void tryLock_reentrantPerThread_excludesOtherThreadsUntilTheLastUnlock() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                LockActor other = LockActor.start("other")) {
            ZkSpringLock lock = registry.obtain("key");
            assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.tryLock()).isTrue(); // a re-entry

            lock.unlock();
            assertThat(other.submit(lock::tryLock).get()).isFalse();
            assertThatThrownBy(() -> other.submit(() -> {
                                lock.unlock();
                                return null;
                            })
                            .join())
                    .hasCauseInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("lock-actor-other")
                    .hasMessageContaining(lock.path());
            lock.unlock();

            assertThat(other.submit(() -> lock.tryLock(5, TimeUnit.SECONDS)).get())
                    .isTrue();
            other.submit(() -> {
                        lock.unlock();
                        return null;
                    })
                    .get();
        }
    }

    /**
     * A re-entry grants a hold with no request, so it must not grant one the lock cannot stand behind: with the server
     * gone the hold is in doubt, and the re-entry throws, as {@code LockRegistryLeaderInitiator}'s heartbeat needs in
     * order to step down.
     */
    @Test
    void tryLock_reentryWhileTheHoldIsInDoubt_throwsNamingTheState() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            ZkSpringLock lock = registry.obtain("key");
            lock.lock();
            zk.stopServer();
            await().pollInSameThread().until(() -> lock.holdState().orElseThrow() == LockState.IN_DOUBT);

            assertThatThrownBy(lock::tryLock)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("IN_DOUBT")
                    .hasMessageContaining(lock.path());
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock(); // its delete waits for the connection
            zk.restartServer();
        }
    }

    @Test
    void localHandOff_onByDefault_threadsOfOneProcessQueueBehindOneNode() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                LockActor waiter = LockActor.start("waiter")) {
            assertThat(registry.isLocalHandOff()).isTrue();
            ZkSpringLock lock = registry.obtain("key");
            lock.lock();
            // a blocking lock: a timed try takes a node of its own (TimedTry)
            Future<Void> waited = waiter.run(lock::lockInterruptibly);
            await().until(lock::hasAcquiringThreads);
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> observer.getChildren().forPath(lock.path()).size() == 1);
            assertThat(waited).isNotDone();

            lock.unlock();
            waited.get(10, TimeUnit.SECONDS);
            waiter.submit(() -> {
                        lock.unlock();
                        return null;
                    })
                    .get();
        }
    }

    @Test
    void localHandOff_off_everyThreadTakesItsOwnNode() throws Exception {
        CuratorFramework observer = zk.newClient();
        CuratorFramework client = zk.newClient();
        List<LockState> heard = new CopyOnWriteArrayList<>();
        LockStates.addListener(client, event -> heard.add(event.state()));
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(client)
                        .root(zk.path("locks"))
                        .localHandOff(false)
                        .build();
                LockActor waiter = LockActor.start("waiter")) {
            ZkSpringLock lock = registry.obtain("key");
            lock.lock();
            Future<Boolean> waited = waiter.submit(() -> lock.tryLock(10, TimeUnit.SECONDS));
            await().until(() -> observer.getChildren().forPath(lock.path()).size() == 2);

            lock.unlock();
            assertThat(waited.get()).isTrue();
            waiter.submit(() -> {
                        lock.unlock();
                        return null;
                    })
                    .get();
        }
    }

    @Test
    void executeLocked_withAndWithoutATimeout_runsUnderTheLockOrTimesOutLeavingNothing() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                ZkSpringLockRegistry another = registry(zk.newClient())) {
            AtomicBoolean ranHeld = new AtomicBoolean();
            registry.executeLocked(
                    "key", () -> ranHeld.set(registry.obtain("key").isHeldByCurrentThread()));
            String result = registry.executeLocked("key", Duration.ofSeconds(5), () -> "done");
            assertThat(ranHeld).isTrue();
            assertThat(result).isEqualTo("done");

            ZkSpringLock held = another.obtain("key");
            held.lock();
            try {
                assertThatThrownBy(() -> registry.executeLocked("key", Duration.ofMillis(100), () -> "never"))
                        .isInstanceOf(TimeoutException.class)
                        .hasMessageContaining("key");
                assertThat(zk.newClient().getChildren().forPath(held.path())).hasSize(1);
            } finally {
                held.unlock();
            }
        }
    }

    @Test
    void expireUnusedOlderThan_zero_forgetsUnusedLocksAndKeepsHeldOnes() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            ZkSpringLock unused = registry.obtain("unused");
            ZkSpringLock held = registry.obtain("held");
            held.lock();
            try {
                registry.expireUnusedOlderThan(0);

                assertThat(registry.size()).isEqualTo(1);
                assertThat(registry.obtain("held")).isSameAs(held);
                assertThat(registry.obtain("unused"))
                        .as("let go of, and still the key's: the test refers to it")
                        .isSameAs(unused);
                registry.expireUnusedOlderThan(TimeUnit.HOURS.toMillis(1));
                assertThat(registry.size()).isEqualTo(2);
            } finally {
                held.unlock();
            }
        }
    }

    /** With and without local hand-off: the lock itself says LOST (ZkReentrantLock.expire), not only this registry. */
    @ParameterizedTest(name = "local hand-off: {0}")
    @ValueSource(booleans = {true, false})
    void lockWithTtl_whenTheTtlRunsOut_deletesTheNodeAndTheHoldGoesLost(boolean localHandOff) throws Exception {
        CuratorFramework observer = zk.newClient();
        CuratorFramework client = zk.newClient();
        List<LockState> heard = new CopyOnWriteArrayList<>();
        LockStates.addListener(client, event -> heard.add(event.state()));
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(client)
                        .root(zk.path("locks"))
                        .localHandOff(localHandOff)
                        .build();
                ZkSpringLockRegistry another = registry(zk.newClient())) {
            ZkSpringLock lock = registry.obtain("key");
            lock.lock(Duration.ofMillis(300));
            String node = lock.path() + "/"
                    + observer.getChildren().forPath(lock.path()).get(0);

            await().atMost(Duration.ofSeconds(5))
                    .until(() -> observer.checkExists().forPath(node) == null);
            await().pollInSameThread().until(() -> lock.holdState().orElseThrow() == LockState.LOST);
            assertThat(heard).contains(LockState.LOST); // the lock's own state, not only this registry's
            ZkSpringLock theirs = another.obtain("key");
            assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.tryLock())
                    .as("a re-entry takes the key anew: another process holds it")
                    .isFalse();

            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(ConcurrentModificationException.class)
                    .hasMessageContaining("PT0.3S");
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(observer.getChildren().forPath(lock.path())).hasSize(1); // theirs only
            theirs.unlock();
        }
    }

    @Test
    void renewLock_beforeTheTtlRunsOut_keepsTheHoldPastIt() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            ZkSpringLock lock = registry.obtain("key");
            assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(300)))
                    .isTrue();
            String node = lock.path() + "/"
                    + observer.getChildren().forPath(lock.path()).get(0);

            registry.renewLock("key", Duration.ofSeconds(30));
            await().during(Duration.ofMillis(800))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> observer.checkExists().forPath(node) != null);
            registry.renewLock("key"); // with the ttl it has: 30 s
            assertThat(lock.holdState()).contains(LockState.HELD);

            lock.unlock(); // no exception: the hold never expired
            assertThatThrownBy(() -> registry.renewLock("key"))
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("'key'")
                    .hasMessageContaining("not held");
        }
    }

    @Test
    void renewLock_afterTheTtlRanOut_throwsAndUnlockReportsTheExpiry() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(zk.newClient())
                .root(zk.path("locks"))
                .localHandOff(false)
                .build()) {
            ZkSpringLock lock = registry.obtain("key");
            lock.lock(Duration.ofMillis(200));
            String node = lock.path() + "/"
                    + observer.getChildren().forPath(lock.path()).get(0);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> observer.checkExists().forPath(node) == null);

            assertThat(lock.holdState()).contains(LockState.LOST);
            assertThatThrownBy(() -> registry.renewLock("key", Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("expired");
            assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        }
    }

    /** Spring's registries take a negative age to mean every unused lock; so does this one. */
    @Test
    void expireUnusedOlderThan_negativeAge_forgetsEveryUnusedLock() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            registry.obtain("unused");
            ZkSpringLock held = registry.obtain("held");
            held.lock();
            try {
                registry.expireUnusedOlderThan(-1);

                assertThat(registry.size()).isEqualTo(1);
                assertThat(registry.obtain("held")).isSameAs(held);
            } finally {
                held.unlock();
            }
        }
    }

    /**
     * A sweep between a caller's {@code obtain} and its lock: the lock is not in use yet, and nothing in the registry
     * says the caller has it. Forced interleaving: obtain, sweep, lock, obtain again (nested), re-enter. Allowed: the
     * nested obtain returns the lock the caller holds, and the re-entry holds at once. Forbidden: another lock for the
     * key while the caller holds the first (its try queues behind the caller's own node and fails; a {@code lock()}
     * would wait forever).
     */
    @Test
    void obtain_afterASweepBetweenObtainAndLock_returnsTheLockItsCallerHolds() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            ZkSpringLock lock = registry.obtain("key");
            registry.expireUnusedOlderThan(0);
            lock.lock();
            try {
                ZkSpringLock again = registry.obtain("key");

                assertThat(again).isSameAs(lock);
                assertThat(again.tryLock()).as("re-entry").isTrue();
                again.unlock();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Spring's cache capacity, as its registries' tests pin it: beyond it the least recently used unused locks go
     * (capacity 4, then 3, then 4 again: the oldest key goes first), a lock held is kept beyond it and obtained again
     * as the same lock, so its thread re-enters instead of queueing behind its own node; a capacity below 1 is refused.
     */
    @Test
    void setCacheCapacity_obtainsBeyondIt_letGoOfTheLeastRecentlyUsedAndNeverAHeldLock() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            registry.setCacheCapacity(4);
            registry.obtain("orders:1");
            registry.obtain("orders:2");
            registry.obtain("orders:3");
            registry.setCacheCapacity(3);
            registry.obtain("orders:4");
            assertThat(registry.size()).isEqualTo(3);
            registry.setCacheCapacity(4);
            registry.obtain("orders:5");
            assertThat(registry.size()).isEqualTo(4);

            registry.setCacheCapacity(1);
            ZkSpringLock held = registry.obtain("test");
            held.lock();
            try {
                registry.obtain("test2");
                ZkSpringLock again = registry.obtain("test");
                assertThat(again).isSameAs(held);
                assertThat(again.tryLock(10, TimeUnit.SECONDS)).isTrue();
                again.unlock();
            } finally {
                held.unlock();
            }
            assertThat(registry.cacheCapacity()).isOne();
            assertThatThrownBy(() -> registry.setCacheCapacity(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0");
        }
    }

    /**
     * Nested obtains of a few keys while another thread sweeps without pause: every nested obtain returns the lock its
     * thread holds, whenever the sweeps fall.
     */
    @Test
    void obtain_nestedUnderSweeps_alwaysReturnsTheLockHeld() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                LockActor sweeper = LockActor.start("sweeper")) {
            CompletableFuture<Integer> sweeps = sweeper.submit(() -> {
                int count = 0;
                while (!stop.get()) {
                    registry.expireUnusedOlderThan(0);
                    count++;
                }
                return count;
            });
            int others = 0;
            try {
                for (int i = 0; i < 150; i++) {
                    ZkSpringLock lock = registry.obtain("key-" + i % 3);
                    lock.lock();
                    try {
                        ZkSpringLock nested = registry.obtain("key-" + i % 3);
                        if (nested != lock) {
                            others++;
                        } else {
                            assertThat(nested.tryLock()).isTrue();
                            nested.unlock();
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            } finally {
                stop.set(true);
            }
            System.out.printf("nested obtains under %d sweeps: %d other locks%n", sweeps.get(), others);
            assertThat(others).isZero();
        }
    }

    /**
     * Locks used once and never again are let go of on the registry's timer, with no further call: the registry stays
     * bounded by what is in use.
     */
    @Test
    void setIdleTime_manyKeysUsedOnce_areLetGoOfOnTheRegistrysTimer() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            registry.setIdleTime(Duration.ofMillis(50));
            for (int i = 0; i < 300; i++) {
                ZkSpringLock lock = registry.obtain("entity-" + i);
                lock.lock();
                lock.unlock();
            }

            await().atMost(Duration.ofSeconds(10)).until(() -> registry.size() == 0);
            assertThat(registry.idleTime()).isEqualTo(Duration.ofMillis(50));
            assertThatThrownBy(() -> registry.setIdleTime(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT-0.001S");
        }
    }

    /** A lock used and let go of is forgotten once nothing refers to it; its key then gets a new lock that works. */
    @Test
    void expireUnusedOlderThan_aLockNoLongerReferenced_isForgottenOnceCollected() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            WeakReference<ZkSpringLock> used = useOnce(registry, "key");
            registry.expireUnusedOlderThan(0);
            assertThat(registry.size()).isZero();

            await().until(() -> {
                System.gc();
                return used.get() == null;
            });

            registry.expireUnusedOlderThan(0);
            assertThat(registry.keys()).isZero();
            assertThat(registry.obtain("key").tryLock()).isTrue();
            registry.obtain("key").unlock();
        }
    }

    private static WeakReference<ZkSpringLock> useOnce(ZkSpringLockRegistry registry, String key) {
        ZkSpringLock lock = registry.obtain(key);
        lock.lock();
        lock.unlock();
        return new WeakReference<>(lock);
    }

    /**
     * A lock whose cohort keeps its node idle is in use: the registry keeps it while the node may be kept, so the next
     * lock of the key in this process takes that node instead of queueing behind it through a new lock.
     */
    @Test
    void expireUnusedOlderThan_aLockKeepingAnIdleNode_isKeptUntilTheNodeMayGo() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (ZkSpringLockRegistry registry = ZkSpringLockRegistry.builder(zk.newClient())
                .root(zk.path("locks"))
                .keepIdle(Duration.ofMillis(500))
                .build()) {
            ZkSpringLock lock = registry.obtain("key");
            lock.lock();
            lock.unlock();
            registry.expireUnusedOlderThan(-1);
            assertThat(registry.size())
                    .as("kept while its node may be kept idle")
                    .isOne();

            await().atMost(Duration.ofSeconds(10)).until(() -> ZkSpringLockTest.childrenOf(observer, lock.path())
                    .isEmpty());
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                registry.expireUnusedOlderThan(-1);
                return registry.size() == 0;
            });
        }
    }

    /** A thread acquiring a lock keeps it in use: sweeps in the meantime do not let go of it. */
    @Test
    void expireUnusedOlderThan_whileAThreadAcquires_keepsTheLock() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                ZkSpringLockRegistry another = registry(zk.newClient());
                LockActor waiter = LockActor.start("waiter")) {
            ZkSpringLock theirs = another.obtain("key");
            theirs.lock();
            ZkSpringLock lock = registry.obtain("key");
            CompletableFuture<Void> waited = waiter.run(lock::lockInterruptibly);
            await().until(lock::hasAcquiringThreads);

            registry.expireUnusedOlderThan(-1);
            assertThat(registry.size()).isOne();

            theirs.unlock();
            waited.get(10, TimeUnit.SECONDS);
            waiter.run(lock::unlock).get();
        }
    }

    /**
     * With a renewal scheduler, a hold with a time to live is renewed every third of it, as Spring's Redis registry
     * renews: it outlives its time to live many times over, and its unlock throws nothing.
     */
    @Test
    void setRenewalTaskScheduler_holdWithATtl_isRenewedEveryThirdOfItsTtl() throws Exception {
        CuratorFramework observer = zk.newClient();
        List<Duration> delays = new CopyOnWriteArrayList<>();
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler() {
            @Override
            public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
                delays.add(delay);
                return super.scheduleWithFixedDelay(task, startTime, delay);
            }

            @Override
            public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
                delays.add(delay);
                return super.scheduleWithFixedDelay(task, delay);
            }
        };
        scheduler.setDaemon(true);
        scheduler.initialize();
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            registry.setRenewalTaskScheduler(scheduler);
            ZkSpringLock lock = registry.obtain("key");
            lock.lock(Duration.ofMillis(600));
            String node = lock.path() + "/"
                    + observer.getChildren().forPath(lock.path()).get(0);

            await().during(Duration.ofMillis(2_000)) // more than three times the ttl
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> observer.checkExists().forPath(node) != null);
            assertThat(lock.holdState()).contains(LockState.HELD);

            lock.unlock(); // no exception: renewed, never expired
            assertThat(delays).containsOnly(Duration.ofMillis(200));
        } finally {
            scheduler.shutdown();
        }
    }

    /**
     * Spring's contract: the lock must be held by the current thread. Another thread's {@code renewLock} is refused
     * with the JDBC registry's exception, and the holder's hold is untouched.
     */
    @Test
    void renewLock_byAThreadThatDoesNotHoldTheLock_throwsIllegalMonitorState() throws Exception {
        try (ZkSpringLockRegistry registry = registry(zk.newClient());
                LockActor holder = LockActor.start("holder")) {
            ZkSpringLock lock = registry.obtain("key");
            holder.run(() -> lock.lock(Duration.ofSeconds(30))).get();

            assertThatThrownBy(() -> registry.renewLock("key"))
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining(lock.path())
                    .hasMessageContaining(Thread.currentThread().getName());
            assertThatThrownBy(() -> registry.renewLock("key", Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalMonitorStateException.class);
            assertThat(holder.submit(lock::holdState).get()).contains(LockState.HELD);
            holder.run(lock::unlock).get();
        }
    }

    /**
     * The registry's default time to live goes to every hold taken without one of its own, as the Redis and JDBC
     * registries give theirs; a re-entry without one leaves it as it is.
     */
    @Test
    void setDefaultTtl_holdsTakenWithoutATtl_expireAfterIt() throws Exception {
        CuratorFramework observer = zk.newClient();
        try (ZkSpringLockRegistry registry = registry(zk.newClient())) {
            assertThat(registry.defaultTtl()).isEmpty();
            registry.setDefaultTtl(Duration.ofMillis(300));
            ZkSpringLock lock = registry.obtain("key");
            assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
            lock.lock(); // a re-entry: the ttl runs on
            String node = lock.path() + "/"
                    + observer.getChildren().forPath(lock.path()).get(0);

            await().atMost(Duration.ofSeconds(5))
                    .until(() -> observer.checkExists().forPath(node) == null);
            assertThat(lock.holdState()).contains(LockState.LOST);
            lock.unlock();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(ConcurrentModificationException.class)
                    .hasMessageContaining("PT0.3S");

            registry.setDefaultTtl(Duration.ZERO);
            assertThat(registry.defaultTtl()).isEmpty();
            assertThatThrownBy(() -> registry.setDefaultTtl(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT-1S");
        }
    }
}
