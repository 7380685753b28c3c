package dev.zklock.recipes.locks;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Per-thread hold counts of a reentrant lock: which thread holds which node, and how many times it entered. Safe for
 * use by multiple threads; each entry is changed only by its own thread.
 */
final class HoldCounts {
    private final String lockPath;
    private final ConcurrentMap<Thread, Hold> holds = new ConcurrentHashMap<>();

    HoldCounts(String lockPath) {
        this.lockPath = lockPath;
    }

    /** Enters again if the current thread holds the lock; returns whether it did. No ZooKeeper call. */
    boolean reenter() {
        Hold hold = holds.get(Thread.currentThread());
        if (hold == null) {
            return false;
        }
        Checks.requireState(hold.count < Integer.MAX_VALUE, "maximum hold count exceeded for lock '%s'", lockPath);
        hold.count++;
        return true;
    }

    /** Records the first hold of the current thread. */
    void hold(LockNode node) {
        holds.put(Thread.currentThread(), new Hold(node));
    }

    /**
     * Counts one release by the current thread; returns the node to delete when the count reaches zero, else null.
     *
     * @throws IllegalMonitorStateException if the current thread holds nothing
     */
    LockNode release() {
        Thread current = Thread.currentThread();
        Hold hold = holds.get(current);
        if (hold == null) {
            throw notHeld(lockPath);
        }
        if (--hold.count > 0) {
            return null;
        }
        holds.remove(current);
        return hold.node;
    }

    /** Returns the node the current thread holds, or null. */
    LockNode heldByCurrentThread() {
        Hold hold = holds.get(Thread.currentThread());
        return hold == null ? null : hold.node;
    }

    int holdCount() {
        Hold hold = holds.get(Thread.currentThread());
        return hold == null ? 0 : hold.count;
    }

    boolean isEmpty() {
        return holds.isEmpty();
    }

    /** The exception for a thread that uses a lock it does not hold, named after the JDK's. */
    static IllegalMonitorStateException notHeld(String lockPath) {
        return new IllegalMonitorStateException(String.format(
                "lock '%s' is not held by thread '%s'",
                lockPath, Thread.currentThread().getName()));
    }

    private static final class Hold {
        final LockNode node;
        int count = 1; // confined to the owning thread

        Hold(LockNode node) {
            this.node = node;
        }
    }
}
