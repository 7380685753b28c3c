package dev.zklock.recipes.locks.holds;

import dev.zklock.recipes.locks.engine.Checks;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Per-thread hold counts of a reentrant lock: which thread holds what (a node, or the nodes of a multi-lock), and how
 * many times it entered. Internal to zklock, not API: the bookkeeping behind the per-thread locks of
 * {@code dev.zklock.recipes.locks}; it may change or go without notice.
 *
 * <p>Safe for use by multiple threads; each count is changed only by its own thread. The first holding thread is kept
 * in fields of this object, so the usual lock, held by one thread at a time, costs no allocation per hold; a map is
 * made only when a second thread holds at the same time (the readers of a read lock).
 *
 * <p>Cost: no operation makes a ZooKeeper call; the lock that keeps the counts does the ZooKeeper work.
 *
 * @param <H> what one thread's hold consists of
 */
public final class HoldCounts<H> {
    private final String lockPath;
    private volatile Thread owner; // the first holding thread; written under this
    private H ownerHeld; // written under this by the owner; read by the owner, or by others under this
    private int ownerCount; // confined to the owner
    private long ownerSince; // confined to the owner: when its first hold began
    private volatile ConcurrentMap<Thread, Count<H>> others; // holding threads beyond the first; made under this

    /** Makes empty counts for the lock {@code lockPath} (or a multi-lock's name), which messages name. */
    public HoldCounts(String lockPath) {
        this.lockPath = lockPath;
    }

    /** Enters again if the current thread holds the lock; returns whether it did. No ZooKeeper call. */
    public boolean reenter() {
        Thread current = Thread.currentThread();
        if (owner == current) {
            requireBelowMax(ownerCount);
            ownerCount++;
            return true;
        }
        Count<H> count = othersCount(current);
        if (count == null) {
            return false;
        }
        requireBelowMax(count.count);
        count.count++;
        return true;
    }

    /** Records the current thread's first hold. */
    public void hold(H held) {
        Thread current = Thread.currentThread();
        synchronized (this) {
            if (owner == null) {
                ownerHeld = held;
                ownerCount = 1;
                ownerSince = System.nanoTime();
                owner = current;
                return;
            }
            if (others == null) {
                others = new ConcurrentHashMap<>(2);
            }
        }
        others.put(current, new Count<>(held));
    }

    /**
     * Counts one release of the current thread; returns what it held when the count reaches zero, else null.
     *
     * @throws IllegalMonitorStateException if the current thread holds nothing
     */
    public H release() {
        Thread current = Thread.currentThread();
        if (owner == current) {
            if (--ownerCount > 0) {
                return null;
            }
            synchronized (this) {
                H held = ownerHeld;
                ownerHeld = null;
                owner = null;
                return held;
            }
        }
        Count<H> count = othersCount(current);
        if (count == null) {
            throw notHeld(lockPath);
        }
        if (--count.count > 0) {
            return null;
        }
        others.remove(current);
        return count.held;
    }

    /** Returns what the current thread holds, or null. */
    public H heldByCurrentThread() {
        Thread current = Thread.currentThread();
        if (owner == current) {
            return ownerHeld;
        }
        Count<H> count = othersCount(current);
        return count == null ? null : count.held;
    }

    /** Returns how long ago the current thread's first hold began, zero if it holds nothing. */
    public long heldNanos() {
        Thread current = Thread.currentThread();
        if (owner == current) {
            return System.nanoTime() - ownerSince;
        }
        Count<H> count = othersCount(current);
        return count == null ? 0 : System.nanoTime() - count.since;
    }

    /** Returns the current thread's hold count, zero if it holds nothing. */
    public int holdCount() {
        Thread current = Thread.currentThread();
        if (owner == current) {
            return ownerCount;
        }
        Count<H> count = othersCount(current);
        return count == null ? 0 : count.count;
    }

    /** Tells whether no thread holds anything. */
    public boolean isEmpty() {
        ConcurrentMap<Thread, Count<H>> more = others;
        return owner == null && (more == null || more.isEmpty());
    }

    private Count<H> othersCount(Thread current) {
        ConcurrentMap<Thread, Count<H>> more = others;
        return more == null ? null : more.get(current);
    }

    private void requireBelowMax(int count) {
        Checks.requireState(count < Integer.MAX_VALUE, "maximum hold count exceeded for lock '%s'", lockPath);
    }

    /** The JDK's exception for a release by a thread that holds nothing, naming the lock and the thread. */
    public static IllegalMonitorStateException notHeld(String lockPath) {
        return new IllegalMonitorStateException(String.format(
                "lock '%s' is not held by thread '%s'",
                lockPath, Thread.currentThread().getName()));
    }

    /** The hold of one thread beyond the first: what it holds, and how many times it entered. */
    private static final class Count<H> {
        final H held;
        final long since = System.nanoTime();
        int count = 1; // confined to the owning thread

        Count(H held) {
            this.held = held;
        }
    }
}
