package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link KeyedLocks}: the table both registries keep their locks in, here with locks of other kinds. */
@Timeout(60)
final class KeyedLocksTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static KeyedLocks<ZkReadWriteLock> accounts(CuratorFramework client, Duration idleTime) {
        return new KeyedLocks<>(
                client,
                idleTime,
                (lock, now) -> lock.writeLock().isAcquiredInThisProcess()
                        || lock.readLock().isAcquiredInThisProcess());
    }

    /** The class documentation's example: a read/write lock per account, the same one while in use. */
    @Test
    void obtain_readWriteLocksByKey_sameWhileHeldAndLetGoOfOnceIdle() throws Exception {
        CuratorFramework client = zk.newClient();
        KeyedLocks<ZkReadWriteLock> accounts = accounts(client, Duration.ZERO);
        ZkReadWriteLock lock = accounts.obtain("a-1", id -> new ZkReadWriteLock(client, zk.path("accounts/" + id)));
        lock.writeLock().acquire();
        try {
            assertThat(accounts.forgetIdle()).as("held: kept").isZero();
            assertThat(accounts.obtain("a-1", id -> new ZkReadWriteLock(client, id)))
                    .isSameAs(lock);
            assertThat(accounts.find("a-1")).isSameAs(lock);
            assertThat(accounts.size()).isOne();
        } finally {
            lock.writeLock().release();
        }
        assertThat(accounts.forgetIdle()).as("idle and not held: let go of").isOne();
        assertThat(accounts.size()).isZero();
        assertThat(accounts.find("a-1")).as("still the key's while referenced").isSameAs(lock);
    }

    /**
     * A sweeper thread lets go of every unused lock without pause while the test obtains, locks, and obtains again
     * inside the hold. Allowed: the nested obtain returns the lock held. Forbidden: a second lock of the key while the
     * first is held (its acquire would queue behind the holder's own node).
     */
    @Test
    void obtain_nestedUnderSweeps_alwaysReturnsTheLockHeld() throws Exception {
        CuratorFramework client = zk.newClient();
        KeyedLocks<ZkReentrantLock> table = new KeyedLocks<>(client, Duration.ZERO, (lock, now) -> lock.isInUse());
        AtomicBoolean stop = new AtomicBoolean();
        int others = 0;
        try (LockActor sweeper = LockActor.start("sweeper")) {
            CompletableFuture<Integer> sweeps = sweeper.submit(() -> {
                int count = 0;
                while (!stop.get()) {
                    table.forgetUnused(0);
                    count++;
                }
                return count;
            });
            try {
                for (int i = 0; i < 150; i++) {
                    String key = "key-" + i % 3;
                    ZkReentrantLock lock = table.obtain(key, k -> new ZkReentrantLock(client, zk.path(k)));
                    lock.acquire();
                    try {
                        ZkReentrantLock nested = table.obtain(key, k -> new ZkReentrantLock(client, zk.path(k)));
                        if (nested != lock) {
                            others++;
                        } else {
                            assertThat(nested.acquire(Duration.ZERO)).isTrue();
                            nested.release();
                        }
                    } finally {
                        lock.release();
                    }
                }
            } finally {
                stop.set(true);
            }
            assertThat(sweeps.get()).isPositive();
        }
        assertThat(others).isZero();
    }

    /** A lock used (locked, unlocked) after its obtain is kept for the idle time after that use, not after the obtain. */
    @Test
    void forgetUnused_lastUsedLaterThanObtain_countsFromTheUse() {
        AtomicLong lastUsed = new AtomicLong(Long.MIN_VALUE);
        KeyedLocks<Object> table = new KeyedLocks<>(zk.newClient(), Duration.ofHours(1), new KeyedLocks.Usage<>() {
            @Override
            public boolean inUse(Object lock, long nowNanos) {
                return false;
            }

            @Override
            public long lastUsedNanos(Object lock) {
                return lastUsed.get();
            }
        });
        Object lock = table.obtain("k", k -> new Object());
        long obtained = System.nanoTime();

        lastUsed.set(obtained + Duration.ofMinutes(10).toNanos());
        assertThat(table.forgetUnused(Duration.ofMinutes(5).toNanos()))
                .as("used 10 min after obtain")
                .isZero();
        lastUsed.set(Long.MIN_VALUE); // never locked: its obtain, a moment ago, is its last use
        assertThat(table.forgetUnused(Duration.ofMinutes(5).toNanos()))
                .as("obtained a moment ago")
                .isZero();
        assertThat(table.forgetUnused(-1))
                .as("a negative age lets go of every unused lock")
                .isOne();
        assertThat(table.find("k")).isSameAs(lock);
    }

    /** Closed, the timer sweeps no more; the caller's own sweeps still work. */
    @Test
    void close_stopsTheTimersSweepsOnly() throws Exception {
        KeyedLocks<Object> swept = new KeyedLocks<>(zk.newClient(), Duration.ZERO, (lock, now) -> false);
        KeyedLocks<Object> closed = new KeyedLocks<>(zk.newClient(), Duration.ZERO, (lock, now) -> false);
        closed.close();
        Object a = swept.obtain("k", k -> new Object());
        Object b = closed.obtain("k", k -> new Object());

        await().atMost(Duration.ofSeconds(10)).until(() -> swept.size() == 0);
        assertThat(closed.size())
                .as("no sweep after close, though the other table's ran")
                .isOne();
        assertThat(closed.forgetIdle()).isOne();
        assertThat(a).isNotSameAs(b);
    }

    @Test
    void badInput_namesTheBadValue() {
        CuratorFramework client = zk.newClient();
        assertThatThrownBy(() -> new KeyedLocks<>(client, Duration.ofMillis(-1), (lock, now) -> false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> new KeyedLocks<>(null, Duration.ZERO, (lock, now) -> false))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> new KeyedLocks<>(client, null, (lock, now) -> false))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("idleTime");
        assertThatThrownBy(() -> new KeyedLocks<>(client, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("usage");
        KeyedLocks<Object> table = new KeyedLocks<>(client, Duration.ZERO, (lock, now) -> false);
        assertThatThrownBy(() -> table.obtain(null, k -> new Object()))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> table.obtain("k", k -> null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("factory");
        assertThat(table.keys()).as("no entry for a lock not made").isZero();
    }

    /**
     * Spring's registries' cache capacity, here as the table's: beyond it, the least recently used locks not in use are
     * let go of; a lock in use is kept beyond it, and lowering the capacity takes effect at the next obtain.
     */
    @Test
    void capacity_obtainBeyondIt_letsGoOfTheLeastRecentlyUsedNotInUse() {
        java.util.Set<Object> inUse = java.util.concurrent.ConcurrentHashMap.newKeySet();
        KeyedLocks<Object> table =
                new KeyedLocks<>(zk.newClient(), Duration.ofHours(1), (lock, now) -> inUse.contains(lock));
        table.capacity(4);
        for (String key : List.of("o1", "o2", "o3")) {
            table.obtain(key, k -> new Object());
        }
        table.capacity(3);
        table.obtain("o4", k -> new Object());
        assertThat(table.size()).isEqualTo(3);
        assertThat(List.of("o1", "o2", "o3", "o4")).filteredOn(table::isKept).containsExactly("o2", "o3", "o4");

        table.capacity(4);
        table.obtain("o5", k -> new Object());
        assertThat(List.of("o2", "o3", "o4", "o5")).allMatch(table::isKept);

        table.obtain("o2", k -> new Object()); // used again: now o3 is the least recently used
        table.obtain("o6", k -> new Object());
        assertThat(List.of("o2", "o3", "o4", "o5", "o6"))
                .filteredOn(table::isKept)
                .containsExactly("o2", "o4", "o5", "o6");

        inUse.add(table.find("o4"));
        inUse.add(table.find("o5"));
        inUse.add(table.find("o6"));
        inUse.add(table.obtain("o7", k -> new Object()));
        table.capacity(1);
        table.obtain("o8", k -> new Object());
        assertThat(List.of("o2", "o4", "o5", "o6", "o7", "o8"))
                .filteredOn(table::isKept)
                .as("in use, or just obtained: kept beyond the capacity")
                .containsExactly("o4", "o5", "o6", "o7", "o8");

        assertThatThrownBy(() -> table.capacity(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    /** Four threads obtain and use 50 keys at once under a capacity of 17: the table ends with 17 kept, no more. */
    @Test
    void capacity_concurrentObtains_neverKeepMoreThanIt() throws Exception {
        CuratorFramework client = zk.newClient();
        KeyedLocks<ZkReentrantLock> table =
                new KeyedLocks<>(client, Duration.ofHours(1), (lock, now) -> lock.isInUse());
        table.capacity(17);
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int i = 0; i < 50; i++) {
                String key = "orders-" + i;
                done.add(threads.submit(() -> {
                    ZkReentrantLock lock = table.obtain(key, k -> new ZkReentrantLock(client, zk.path(k)));
                    lock.acquire();
                    lock.release();
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> each : done) {
                each.get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdown();
        }
        assertThat(table.size()).isEqualTo(17);
        assertThat(table.forgetUnused(-1)).isEqualTo(17);
    }
}
