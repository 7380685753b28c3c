package dev.zklock.recipes.locks.holds;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A zklock lock seen as a {@link java.util.concurrent.locks.Lock}, with the JDK's meaning of each method: {@code lock()}
 * waits through interrupts, {@code tryLock()} never waits, {@code unlock()} by a thread that does not hold the lock
 * throws {@link IllegalMonitorStateException}. Internal to zklock, not API: users get it from a lock's
 * {@code asLock()}, typed as the JDK's {@code Lock}; this class may change or go without notice.
 *
 * <p>Safe for use by multiple threads, with the ownership rules of the lock it adapts. Cost: each method costs what the
 * lock's acquire or release costs (see the lock's class documentation); {@code newCondition()} and {@code toString()}
 * make no ZooKeeper call.
 */
public final class JdkLock implements Lock {
    /** What the adapter needs of a zklock lock: the lock's own acquire with a deadline, its release and its name. */
    public interface Target {
        /** Acquires until the deadline; true if the caller now holds the lock. Costs what the lock's acquire costs. */
        boolean acquire(Deadline deadline) throws InterruptedException;

        /** Releases the caller's hold. Costs what the lock's release costs. */
        void release();

        /** Returns what messages call the lock: its path, or a multi-lock's paths. No ZooKeeper call. */
        String name();
    }

    private final Target target;

    /** Makes the adapter of {@code target}. No ZooKeeper call. */
    public JdkLock(Target target) {
        this.target = target;
    }

    /**
     * Waits as long as it takes. An interrupt does not end the wait: the acquire starts again (with a new place at the
     * back of the queue) and the interrupt flag is set again when the lock is held.
     */
    @Override
    public void lock() {
        boolean interrupted = false;
        while (true) {
            try {
                target.acquire(Deadline.forever());
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        target.acquire(Deadline.forever());
    }

    /** One try that never waits; an interrupt flag is kept, not acted on. */
    @Override
    public boolean tryLock() {
        boolean interrupted = Thread.interrupted();
        try {
            return target.acquire(Deadline.after(0));
        } catch (InterruptedException e) {
            interrupted = true;
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return target.acquire(Deadline.after(Checks.toNanos(time, unit)));
    }

    @Override
    public void unlock() {
        target.release();
    }

    /**
     * Not supported: a condition's {@code await} must give the lock up and take it back across processes on a signal,
     * which a ZooKeeper lock cannot do for another process's condition object.
     *
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("lock '" + target.name()
                + "' has no conditions: a ZooKeeper lock cannot wake a waiter of another process through a JDK"
                + " Condition; watch a ZooKeeper node, or use a distributed queue or barrier recipe instead");
    }

    @Override
    public String toString() {
        return "Lock[" + target.name() + "]";
    }
}
