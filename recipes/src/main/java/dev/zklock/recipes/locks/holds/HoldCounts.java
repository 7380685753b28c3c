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
    /** What {@link #heldNanos()} says of a hold recorded untimed. */
    public static final long UNTIMED = Long.MIN_VALUE;

    private final String lockPath;
    private volatile Thread owner; // the first holding thread; written under this
    private H ownerHeld; // written under this by the owner; read by the owner, or by others under this
    private int ownerCount; // confined to the owner
    private long ownerSince; // confined to the owner: when its first hold began, or UNTIMED
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

    /** Records the current thread's first hold, untimed: {@link #heldNanos()} will not say how long it lasted. */
    public void hold(H held) {
        hold(held, false);
    }

    /**
     * Records the current thread's first hold; {@code timed}: its start is read from the clock, for
     * {@link #heldNanos()}. A lock times only the holds a metrics listener will hear of: a clock read costs 30 to 90 ns on
     * a virtual machine, and a local hand-off's new holder read one on its way to the caller.
     */
    public void hold(H held, boolean timed) {
        Thread current = Thread.currentThread();
        long since = timed ? System.nanoTime() : UNTIMED;
        synchronized (this) {
            if (owner == null) {
                ownerHeld = held;
                ownerCount = 1;
                ownerSince = since;
                owner = current;
                return;
            }
            if (others == null) {
                others = new ConcurrentHashMap<>(2);
            }
        }
        others.put(current, new Count<>(held, since));
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

    /**
     * Returns how long ago the current thread's first hold began: zero if it holds nothing, {@link #UNTIMED} if the hold
     * was recorded untimed.
     */
    public long heldNanos() {
        Thread current = Thread.currentThread();
        long since;
        if (owner == current) {
            since = ownerSince;
        } else {
            Count<H> count = othersCount(current);
            if (count == null) {
                return 0;
            }
            since = count.since;
        }
        return since == UNTIMED ? UNTIMED : System.nanoTime() - since;
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
        final long since; // or UNTIMED
        int count = 1; // confined to the owning thread

        Count(H held, long since) {
            this.held = held;
            this.since = since;
        }
    }
}
