package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.TimerPort;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;

/**
 * Lock objects by key, of any kind (a {@link ZkReadWriteLock} per account, a {@link ZkSemaphore} per tenant, your own
 * wrapper), each kept while in use and for an idle time after, then forgotten, with no race against {@code obtain}: the
 * table {@link ZkLockRegistry} and zklock-spring's registry keep their locks in. Safe for use by multiple threads; no
 * ZooKeeper call.
 *
 * <pre>{@code
 * KeyedLocks<ZkReadWriteLock> accounts = new KeyedLocks<>(client, Duration.ofMinutes(1), (lock, now) ->
 *         lock.writeLock().isAcquiredInThisProcess() || lock.readLock().isAcquiredInThisProcess());
 * ZkReadWriteLock lock = accounts.obtain(accountId, id -> new ZkReadWriteLock(client, "/locks/accounts/" + id));
 * }</pre>
 *
 * <ol>
 *   <li>An entry refers to its lock weakly always, so {@code obtain} finds the lock while anything can use it, and
 *       strongly while the table keeps it: while its {@link Usage} says it is in use, and for the idle time after its
 *       last use. A lock let go of is still its key's until the garbage collector finds it unreachable; only then is
 *       the key forgotten. So no two locks of one key are handed out while one of them can be used: a thread that holds
 *       one and obtains its key again gets the same lock
 *       ({@code ZkLockRegistryTest.obtain_afterASweepBetweenObtainAndAcquire_returnsTheInstanceItsCallerHolds}).
 *   <li>{@code obtain} and every look at an entry (a sweep's) run inside the map's compute for its key, and
 *       {@code obtain} marks the lock used there: a sweep comes before an obtain or after it, never between the lookup
 *       and the mark ({@code KeyedLocksTest.obtain_nestedUnderSweeps_alwaysReturnsTheLockHeld}).
 *   <li>The timer thread of the client's zklock context looks at the entries every half idle time (at least every 100
 *       ms), {@value #SWEEP_STEP} entries a run so that a large table does not hold up the client's other timed work,
 *       for as long as the table has entries, is not closed and its client is open; {@code obtain} never scans the
 *       table.
 *   <li>A {@linkplain #capacity(int) capacity} bounds the locks kept by count as well: an {@code obtain} that keeps
 *       one more than it lets go of the least recently used locks not in use (used: obtained, or as the
 *       {@link Usage} says), as Spring's registries' caches do; a lock in use is kept beyond it. That {@code obtain}
 *       looks at every entry once, so with a capacity of {@code c} it lets go of {@code c / 64} locks at a time (at
 *       least one), and the table keeps between {@code c - c / 64} and {@code c} locks (exactly {@code c} below 64)
 *       ({@code KeyedLocksTest.capacity_obtainBeyondIt_letsGoOfTheLeastRecentlyUsedNotInUse}).
 * </ol>
 *
 * @param <L> the type of the locks
 * @since 0.1.0
 */
public final class KeyedLocks<L> implements AutoCloseable {
    private static final long MIN_SWEEP_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int SWEEP_STEP = 4096;

    private final Map<String, Entry<L>> locks = new ConcurrentHashMap<>();
    private final AtomicInteger keptCount = new AtomicInteger(); // entries whose lock the table keeps
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final TimerPort timer;
    private final Usage<? super L> usage;
    private final ReentrantLock evicting = new ReentrantLock();
    private volatile long idleNanos;
    private volatile int capacity = Integer.MAX_VALUE;
    private volatile boolean closed;
    private Iterator<Map.Entry<String, Entry<L>>> cursor; // confined to the timer thread: where the last step stopped

    /**
     * Tells the table when a lock is in use: then it is kept, however long ago it was obtained. Called inside the
     * table's map compute for the lock's key, on any thread: it must be quick, make no ZooKeeper call, and not touch
     * the table.
     *
     * @param <L> the type of the locks
     * @since 0.1.0
     */
    @FunctionalInterface
    public interface Usage<L> {
        /**
         * Tells whether {@code lock} is in use: held, being acquired, keeping a node.
         *
         * @param lock the lock
         * @param nowNanos {@link System#nanoTime()} of the look
         * @return true to keep the lock
         */
        boolean inUse(L lock, long nowNanos);

        /**
         * Returns when {@code lock} was last used in a way the table does not see (locked, unlocked): it is kept for
         * the idle time after the later of this and its last {@code obtain}.
         *
         * @param lock the lock
         * @return a {@link System#nanoTime()}, or {@link Long#MIN_VALUE} (the default) for none
         */
        default long lastUsedNanos(L lock) {
            return Long.MIN_VALUE;
        }
    }

    /**
     * Creates an empty table. No ZooKeeper call.
     *
     * @param client the client whose zklock timer thread sweeps the table; the sweeps stop when it closes
     * @param idleTime how long an unused lock is kept; zero lets go of it at the next sweep
     * @param usage when a lock is in use
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code idleTime} is negative
     */
    public KeyedLocks(CuratorFramework client, Duration idleTime, Usage<? super L> usage) {
        this.timer = ClientContext.of(Objects.requireNonNull(client, "client")).timer();
        this.usage = Objects.requireNonNull(usage, "usage");
        idleTime(idleTime);
    }

    /**
     * Returns the lock of {@code key}, made by {@code factory} if no lock of it can be used any more, and marks it used.
     *
     * @param key the key
     * @param factory makes the key's lock; called inside the map's compute for the key, at most once a call
     * @return the key's lock
     * @throws NullPointerException if an argument is null or the factory returns null
     */
    public L obtain(String key, Function<? super String, ? extends L> factory) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(factory, "factory");
        long now = System.nanoTime();
        @SuppressWarnings("unchecked")
        L[] obtained = (L[]) new Object[1];
        locks.compute(key, (k, existing) -> {
            L alive = existing == null ? null : existing.instance.get();
            Entry<L> current = existing;
            if (alive == null) { // a new key, or one whose lock nothing can use any more
                alive = Objects.requireNonNull(factory.apply(k), "the factory made no lock");
                current = new Entry<>(alive);
            }
            keep(current, alive);
            current.lastObtained = now;
            obtained[0] = alive;
            return current;
        });
        if (keptCount.get() > capacity) {
            evictLeastRecentlyUsed(obtained[0]);
        }
        if (!closed && !sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            Sweep.schedule(this, sweepPeriodNanos());
        }
        return obtained[0];
    }

    /**
     * Returns the lock of {@code key} if there is one that can be used, without marking it used.
     *
     * @param key the key
     * @return the lock, or null
     * @throws NullPointerException if {@code key} is null
     */
    public L find(String key) {
        Entry<L> entry = locks.get(Objects.requireNonNull(key, "key"));
        return entry == null ? null : entry.instance.get();
    }

    /**
     * Lets go, now, of every lock not in use and not used for the idle time; the timer does this by itself.
     *
     * @return how many locks were let go of
     */
    public int forgetIdle() {
        return forgetUnused(idleNanos);
    }

    /**
     * Lets go, now, of every lock not in use and not used for {@code ageNanos}, and forgets the keys whose locks were
     * let go of and are no longer referenced anywhere.
     *
     * @param ageNanos any age; zero or negative lets go of every lock not in use
     * @return how many locks were let go of
     */
    public int forgetUnused(long ageNanos) {
        long now = System.nanoTime();
        int forgotten = 0;
        for (Map.Entry<String, Entry<L>> e : locks.entrySet()) {
            if (forgetIfUnused(e, ageNanos, now)) {
                forgotten++;
            }
        }
        return forgotten;
    }

    /**
     * Sets how long an unused lock is kept; the next sweep uses it.
     *
     * @param idleTime the time; zero lets go of an unused lock at the next sweep
     * @throws NullPointerException if {@code idleTime} is null
     * @throws IllegalArgumentException if {@code idleTime} is negative
     */
    public void idleTime(Duration idleTime) {
        Objects.requireNonNull(idleTime, "idleTime");
        Checks.requireArgument(!idleTime.isNegative(), "idle time must not be negative: %s", idleTime);
        this.idleNanos = Checks.toNanos(idleTime);
    }

    /**
     * Sets how many locks the table keeps at most, in use or not: beyond it an {@code obtain} lets go of the least
     * recently used locks not in use (note 4). Locks in use are kept beyond it. The next {@code obtain} uses it.
     *
     * @param capacity at least 1; {@link Integer#MAX_VALUE} (the default) for no bound but the idle time
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    public void capacity(int capacity) {
        Checks.requireArgument(capacity >= 1, "capacity must be at least 1, not %s", capacity);
        this.capacity = capacity;
    }

    /**
     * Returns how many locks the table keeps now (in use, or used within the idle time), for monitoring; locks let go
     * of are not counted, even while something still refers to them.
     *
     * @return the number of locks kept
     */
    public int size() {
        return keptCount.get();
    }

    /**
     * Returns how many keys the table knows now: those it keeps, and those let go of whose locks are not yet collected.
     *
     * @return the number of keys
     */
    public int keys() {
        return locks.size();
    }

    /** Tells whether the table keeps the lock of {@code key} now; for tests. */
    boolean isKept(String key) {
        Entry<L> entry = locks.get(key);
        return entry != null && entry.kept != null;
    }

    /**
     * Stops the timer's sweeps; {@link #forgetIdle()} and {@link #forgetUnused(long)} still work, and so does
     * {@code obtain}. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "KeyedLocks[" + keptCount.get() + " kept, " + locks.size() + " keys]";
    }

    /** Keeps the lock of {@code entry}; inside the map's compute for its key. */
    private void keep(Entry<L> entry, L lock) {
        if (entry.kept == null) {
            keptCount.incrementAndGet();
        }
        entry.kept = lock;
    }

    /**
     * Lets go of the entry's lock if it is not in use and was not used for {@code ageNanos}, and removes the entry once
     * its lock is unreachable, all inside the map's compute for the key (note 2). A let-go lock found in use (by a
     * caller who kept it) is kept again. Returns whether it let go of the lock.
     */
    private boolean forgetIfUnused(Map.Entry<String, Entry<L>> e, long ageNanos, long now) {
        Entry<L> entry = e.getValue();
        boolean[] letGo = new boolean[1];
        locks.computeIfPresent(e.getKey(), (key, current) -> {
            L lock = current.instance.get();
            if (current != entry || lock == null) {
                return current == entry ? null : current; // unreachable: nothing can use it, so the key is forgotten
            }
            boolean inUse = usage.inUse(lock, now);
            if (current.kept == null) {
                if (inUse) {
                    keep(current, lock);
                }
                return current;
            }
            long lastUse = Math.max(current.lastObtained, usage.lastUsedNanos(lock));
            letGo[0] = !inUse && now - lastUse >= ageNanos;
            if (letGo[0]) {
                current.kept = null;
                keptCount.decrementAndGet();
            }
            return current;
        });
        return letGo[0];
    }

    /**
     * Lets go of the least recently used locks not in use, so many that the table keeps {@code capacity - capacity /
     * 64} (note 4); {@code justObtained} is kept. One caller at a time; a caller that finds another at it leaves the
     * work to it, and the other looks again when done, so an obtain made meanwhile is not missed.
     */
    private void evictLeastRecentlyUsed(L justObtained) {
        while (keptCount.get() > capacity && evicting.tryLock()) {
            boolean letGo;
            try {
                letGo = evictOnce(justObtained);
            } finally {
                evicting.unlock();
            }
            if (!letGo) {
                return; // all in use: kept beyond the capacity
            }
        }
    }

    /** One look at every entry, and the oldest let go of; returns whether any was. Under {@link #evicting}. */
    private boolean evictOnce(L justObtained) {
        int bound = capacity;
        int excess = keptCount.get() - (bound - bound / 64);
        if (excess <= 0 || keptCount.get() <= bound) {
            return false;
        }
        long now = System.nanoTime();
        // the excess oldest candidates, the newest of them on top
        PriorityQueue<Candidate<L>> oldest = new PriorityQueue<>((a, b) -> Long.compare(b.lastUse, a.lastUse));
        for (Map.Entry<String, Entry<L>> e : locks.entrySet()) {
            Entry<L> entry = e.getValue();
            L lock = entry.kept;
            if (lock == null || lock == justObtained || usage.inUse(lock, now)) {
                continue;
            }
            long lastUse = Math.max(entry.lastObtained, usage.lastUsedNanos(lock));
            if (oldest.size() < excess) {
                oldest.add(new Candidate<>(e, lastUse));
            } else if (lastUse - oldest.peek().lastUse < 0) {
                oldest.poll();
                oldest.add(new Candidate<>(e, lastUse));
            }
        }
        boolean letGo = false;
        for (Candidate<L> candidate : oldest) {
            letGo |= forgetIfUnused(candidate.entry, now - candidate.lastUse, now); // not if used since the look
        }
        return letGo;
    }

    private record Candidate<L>(Map.Entry<String, Entry<L>> entry, long lastUse) {}

    private long sweepPeriodNanos() {
        return Math.max(idleNanos / 2, MIN_SWEEP_PERIOD_NANOS);
    }

    /** One step of the timer's sweep (note 3); returns whether the round is over. Timer thread only. */
    private boolean sweepStep() {
        long now = System.nanoTime();
        long age = idleNanos;
        for (int i = 0; i < SWEEP_STEP; i++) {
            if (cursor == null) {
                cursor = locks.entrySet().iterator();
            }
            if (!cursor.hasNext()) {
                cursor = null;
                return true;
            }
            forgetIfUnused(cursor.next(), age, now);
        }
        return false;
    }

    /**
     * The timer's sweep of one table: it holds the table weakly, so a table nobody uses can go, and stops when the
     * table is empty (the next {@code obtain} of a new key starts it again), closed, or the client closed.
     */
    private static final class Sweep implements Runnable {
        private final WeakReference<KeyedLocks<?>> table;

        private Sweep(KeyedLocks<?> table) {
            this.table = new WeakReference<>(table);
        }

        static void schedule(KeyedLocks<?> table, long delayNanos) {
            if (table.timer.schedule(new Sweep(table), delayNanos) == null) {
                table.sweepScheduled.set(false); // the client is closed
            }
        }

        @Override
        public void run() {
            KeyedLocks<?> swept = table.get();
            if (swept == null) {
                return;
            }
            if (swept.closed) {
                swept.sweepScheduled.set(false);
                return;
            }
            if (!swept.sweepStep()) {
                schedule(swept, 0); // more of the table to look at: let the timer's other work in first
                return;
            }
            swept.sweepScheduled.set(false);
            if (!swept.locks.isEmpty() && swept.sweepScheduled.compareAndSet(false, true)) {
                schedule(swept, swept.sweepPeriodNanos());
            }
        }
    }

    /**
     * A key's lock: referred to weakly always, and strongly ({@link #kept}) while the table keeps it. {@code kept} and
     * {@code lastObtained} are written only inside the map's compute for the key; the capacity's look reads them
     * outside it, and what it picks is decided again inside.
     */
    private static final class Entry<L> {
        final WeakReference<L> instance;
        volatile L kept; // null once the table has let go of the lock
        volatile long lastObtained;

        Entry(L lock) {
            this.instance = new WeakReference<>(lock);
        }
    }
}
