package dev.zklock.spring;

import java.lang.ref.WeakReference;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The locks of a {@link ZkSpringLockRegistry} by path: the same lock for a path for as long as anything can still use
 * it, and forgotten once idle, with no race against {@code obtain}. zklock's {@code ZkLockRegistry} does the same for
 * its keys, and this class does it the same way. Safe for use by multiple threads; no ZooKeeper call.
 *
 * <p>Implementation notes.
 *
 * <ol>
 *   <li>An entry refers to its lock weakly always, so {@code obtain} finds the lock while anything can use it, and
 *       strongly ({@link Entry#kept}) while the table keeps it: while a thread holds or acquires it, while its cohort
 *       may keep an idle node, and for the idle time after its last use. A lock let go of is still its path's until the
 *       garbage collector finds it unreachable; only then is the entry removed. So no two locks of one path are handed
 *       out while one of them can be used: a thread that holds one and obtains its key again gets the same lock, and
 *       re-enters, instead of queueing behind its own node
 *       ({@code ZkSpringLockRegistryTest.obtain_afterASweepBetweenObtainAndLock_returnsTheLockItsCallerHolds}).
 *   <li>{@code obtain} and every look at an entry (a sweep's) run inside the map's compute for its path, and
 *       {@code obtain} marks the lock used there: a sweep comes before an obtain or after it, never between the lookup
 *       and the mark ({@code ZkSpringLockRegistryTest.obtain_nestedUnderSweeps_alwaysReturnsTheLockHeld}).
 *   <li>The registry's timer looks at the entries every half idle time (at least every 100 ms), {@value #SWEEP_STEP}
 *       entries a run so that a large table does not hold up the holds' timers, for as long as the table has entries
 *       and the timer runs; {@code obtain} never scans the table.
 * </ol>
 */
final class LockTable {
    private static final long MIN_SWEEP_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int SWEEP_STEP = 4096;

    private final Map<String, Entry> locks = new ConcurrentHashMap<>();
    private final AtomicInteger keptCount = new AtomicInteger(); // entries whose lock the table keeps
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final TtlTimer timer;
    private volatile long idleNanos;
    private Iterator<Map.Entry<String, Entry>> cursor; // confined to the timer thread: where the last step stopped

    LockTable(TtlTimer timer, long idleNanos) {
        this.timer = timer;
        this.idleNanos = idleNanos;
    }

    /** Returns the lock of {@code path}, made by {@code factory} if no lock of it can be used any more. */
    ZkSpringLock obtain(String path, Function<String, ZkSpringLock> factory) {
        ZkSpringLock[] obtained = new ZkSpringLock[1];
        locks.compute(path, (p, existing) -> {
            ZkSpringLock alive = existing == null ? null : existing.instance.get();
            Entry current = existing;
            if (alive == null) {
                alive = factory.apply(p);
                current = new Entry(alive);
            }
            keep(current, alive);
            alive.touch();
            obtained[0] = alive;
            return current;
        });
        if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            Sweep.schedule(this, sweepPeriodNanos());
        }
        return obtained[0];
    }

    /** Returns the lock of {@code path} if there is one that can be used, else null. */
    ZkSpringLock find(String path) {
        Entry entry = locks.get(path);
        return entry == null ? null : entry.instance.get();
    }

    /** Lets go of every lock not in use and not used for {@code ageNanos} (any age, negative too); returns how many. */
    int forgetUnused(long ageNanos) {
        long now = System.nanoTime();
        int forgotten = 0;
        for (Map.Entry<String, Entry> e : locks.entrySet()) {
            if (forgetIfUnused(e, ageNanos, now)) {
                forgotten++;
            }
        }
        return forgotten;
    }

    void setIdleNanos(long idleNanos) {
        this.idleNanos = idleNanos;
    }

    /** How many locks the table keeps now. */
    int size() {
        return keptCount.get();
    }

    /** How many paths the table knows now: those it keeps, and those let go of whose locks are not yet collected. */
    int keys() {
        return locks.size();
    }

    /** Keeps the lock of {@code entry}; inside the map's compute for its path. */
    private void keep(Entry entry, ZkSpringLock lock) {
        if (entry.kept == null) {
            keptCount.incrementAndGet();
        }
        entry.kept = lock;
    }

    /**
     * Lets go of the entry's lock if it is not in use and was not used for {@code ageNanos}, and removes the entry once
     * its lock is unreachable, all inside the map's compute for the path (note 2). A let-go lock found in use (by a
     * caller who kept it) is kept again. Returns whether it let go of the lock.
     */
    private boolean forgetIfUnused(Map.Entry<String, Entry> e, long ageNanos, long now) {
        Entry entry = e.getValue();
        boolean[] letGo = new boolean[1];
        locks.computeIfPresent(e.getKey(), (path, current) -> {
            ZkSpringLock lock = current.instance.get();
            if (current != entry || lock == null) {
                return current == entry ? null : current; // unreachable: nothing can use it, so the path is forgotten
            }
            boolean inUse = lock.isInUse(now);
            if (current.kept == null) {
                if (inUse) {
                    keep(current, lock);
                }
                return current;
            }
            letGo[0] = !inUse && lock.isUnusedFor(ageNanos, now);
            if (letGo[0]) {
                current.kept = null;
                keptCount.decrementAndGet();
            }
            return current;
        });
        return letGo[0];
    }

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
     * The timer's sweep of one table: it holds the table weakly, so a registry nobody uses can go, and stops when the
     * table is empty (the next {@code obtain} of a new path starts it again) or the timer is closed.
     */
    private static final class Sweep implements Runnable {
        private final WeakReference<LockTable> table;

        private Sweep(LockTable table) {
            this.table = new WeakReference<>(table);
        }

        static void schedule(LockTable table, long delayNanos) {
            if (table.timer.schedule(new Sweep(table), delayNanos) == null) {
                table.sweepScheduled.set(false); // the registry is closed
            }
        }

        @Override
        public void run() {
            LockTable swept = table.get();
            if (swept == null) {
                return;
            }
            if (!swept.sweepStep()) {
                schedule(swept, 0); // more of the table to look at: let the holds' timers in first
                return;
            }
            swept.sweepScheduled.set(false);
            if (!swept.locks.isEmpty() && swept.sweepScheduled.compareAndSet(false, true)) {
                schedule(swept, swept.sweepPeriodNanos());
            }
        }
    }

    /**
     * A path's lock: referred to weakly always, and strongly ({@link #kept}) while the table keeps it. {@code kept} is
     * read and written only inside the map's compute for the path.
     */
    private static final class Entry {
        final WeakReference<ZkSpringLock> instance;
        ZkSpringLock kept; // null once the table has let go of the lock

        Entry(ZkSpringLock lock) {
            this.instance = new WeakReference<>(lock);
        }
    }
}
