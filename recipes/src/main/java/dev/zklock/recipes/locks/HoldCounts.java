package dev.zklock.recipes.locks;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;

/**
 * Per-thread hold counts of a reentrant lock: which thread holds what (a node, or the nodes of a multi-lock), and how
 * many times it entered. Safe for use by multiple threads; each entry is changed only by its own thread.
 *
 * @param <H> what one thread's hold consists of
 */
final class HoldCounts<H> {
    private final String lockPath;
    // Sized for the usual one or two holding threads: a default table costs every held lock about 80 bytes more.
    private final ConcurrentMap<Thread, Hold<H>> holds = new ConcurrentHashMap<>(2);

    HoldCounts(String lockPath) {
        this.lockPath = lockPath;
    }

    /** Enters again if the current thread holds the lock; returns whether it did. No ZooKeeper call. */
    boolean reenter() {
        Hold<H> hold = holds.get(Thread.currentThread());
        if (hold == null) {
            return false;
        }
        Checks.requireState(hold.count < Integer.MAX_VALUE, "maximum hold count exceeded for lock '%s'", lockPath);
        hold.count++;
        return true;
    }

    /** Records the first hold of the current thread. */
    void hold(H held) {
        holds.put(Thread.currentThread(), new Hold<>(held));
    }

    /**
     * Counts one release by the current thread; returns what to release when the count reaches zero, else null.
     *
     * @throws IllegalMonitorStateException if the current thread holds nothing
     */
    H release() {
        Thread current = Thread.currentThread();
        Hold<H> hold = holds.get(current);
        if (hold == null) {
            throw notHeld(lockPath);
        }
        if (--hold.count > 0) {
            return null;
        }
        holds.remove(current);
        return hold.held;
    }

    /** Returns what the current thread holds, or null. */
    H heldByCurrentThread() {
        Hold<H> hold = holds.get(Thread.currentThread());
        return hold == null ? null : hold.held;
    }

    int holdCount() {
        Hold<H> hold = holds.get(Thread.currentThread());
        return hold == null ? 0 : hold.count;
    }

    boolean isEmpty() {
        return holds.isEmpty();
    }

    /** Tells whether some thread's hold matches {@code test}. */
    boolean anyMatch(Predicate<H> test) {
        return holds.values().stream().anyMatch(hold -> test.test(hold.held));
    }

    /** The exception for a thread that uses a lock it does not hold, named after the JDK's. */
    static IllegalMonitorStateException notHeld(String lockPath) {
        return new IllegalMonitorStateException(String.format(
                "lock '%s' is not held by thread '%s'",
                lockPath, Thread.currentThread().getName()));
    }

    private static final class Hold<H> {
        final H held;
        int count = 1; // confined to the owning thread

        Hold(H held) {
            this.held = held;
        }
    }
}
