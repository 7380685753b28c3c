package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * One contender of a {@link LockLoop}: the lock it loops on, whether it shares that lock with the other shared
 * contenders (a reader) or holds it alone, how long each acquire may wait before it gives up, and the group it belongs
 * to (the client it runs on, where the loop tells clients apart).
 *
 * @param lock the lock
 * @param shared true for a reader, which may hold together with other readers; false for an exclusive holder
 * @param timeout how long an acquire may wait; empty to wait as long as it takes
 * @param group the contender's group, from 0: its acquisitions are counted with those of its group, and an acquire
 *     after a holder of another group is timed on its own
 * @param limit for a shared contender, the most shared holders allowed at once (a semaphore's leases); 0 for no limit
 */
record Contender(InterProcessLock lock, boolean shared, Optional<Duration> timeout, int group, int limit) {

    /** A contender that holds {@code lock} alone and waits for it as long as it takes. */
    static Contender exclusive(InterProcessLock lock) {
        return new Contender(lock, false, Optional.empty(), 0, 0);
    }

    /** A reader: holds {@code lock} together with other readers, and waits for it as long as it takes. */
    static Contender reader(InterProcessLock lock) {
        return new Contender(lock, true, Optional.empty(), 0, 0);
    }

    /**
     * A lease holder: holds {@code lock}, one lease of a semaphore, together with at most {@code leases} - 1 others,
     * and waits for it as long as it takes.
     */
    static Contender lease(InterProcessLock lock, int leases) {
        return new Contender(lock, true, Optional.empty(), 0, leases);
    }

    /** A contender that holds {@code lock} alone and gives up an acquire after {@code timeout}. */
    static Contender exclusive(InterProcessLock lock, Duration timeout) {
        return new Contender(lock, false, Optional.of(timeout), 0, 0);
    }

    /** Returns this contender in {@code group}. */
    Contender inGroup(int group) {
        return new Contender(lock, shared, timeout, group, limit);
    }

    /** Acquires the lock; returns false if the acquire gave up at its timeout. */
    boolean acquire() throws Exception {
        if (timeout.isEmpty()) {
            lock.acquire();
            return true;
        }
        return lock.acquire(timeout.get().toNanos(), TimeUnit.NANOSECONDS);
    }
}
