package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.FirstUse;
import dev.zklock.recipes.locks.holds.JdkLock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * The acquire methods every zklock lock has, in every form (blocking, timed, try-with-resources, JDK {@link Lock}),
 * on top of one package-private acquire with a deadline. Safe for use by multiple threads.
 */
abstract class TimedLock implements InterProcessLock {
    private final Lock jdkLock = newJdkLock(); // one per lock, so asLock() answers the same object every time
    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * <p>If the lock is reentrant and the current thread holds it, the hold count goes up by one and the method returns
     * at once, with no ZooKeeper call. Otherwise the caller takes a place in the queue and waits until one of these
     * happens:
     *
     * <ul>
     *   <li>the lock becomes ours;
     *   <li>the thread is interrupted: our node is deleted and {@link InterruptedException} is thrown;
     *   <li>ZooKeeper refuses a request: our node is deleted and {@link ZkLockException} is thrown.
     * </ul>
     *
     * <p>If the client's session expires while waiting, the wait goes on with a new node at the back of the queue.
     * Cost: see the class documentation.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was
     *     {@linkplain LockState#LOST lost} and not yet released
     */
    @Override
    public void acquire() throws InterruptedException {
        if (!take(Deadline.forever())) {
            throw new AssertionError("an acquire of '" + lockName() + "' with no deadline came back without the lock");
        }
    }

    /**
     * Acquires the lock if it becomes free within {@code time}.
     *
     * <p>As {@link #acquire()}, but the wait also ends when the time runs out: then our node is deleted and the method
     * returns {@code false}. A time of zero or less makes a single try that never waits, like
     * {@link java.util.concurrent.locks.Lock#tryLock()}. The time covers creating our node, recovering from a lost
     * connection and waiting; the method returns within it plus one request timeout (two thirds of the session timeout:
     * the longest ZooKeeper's client lets a request wait for its reply before it declares the connection lost), even
     * when the time runs out with a request in flight and the connection then goes ({@code AcquireBoundsTest}).
     *
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        return take(Deadline.after(Checks.toNanos(time, unit)));
    }

    /**
     * Acquires the lock if it becomes free within {@code timeout}; see {@link #acquire(long, TimeUnit)}.
     *
     * @param timeout the longest time to wait; zero or negative makes a single try that never waits
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    public boolean acquire(Duration timeout) throws InterruptedException {
        return take(Deadline.after(Checks.toNanos(timeout)));
    }

    /**
     * Acquires the lock, waiting as long as it takes, and returns the hold for try-with-resources: closing it releases
     * (see {@link LockHold}). As {@link #acquire()} otherwise.
     *
     * @return the hold; closing it calls {@code release()}
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    public LockHold hold() throws InterruptedException {
        acquire();
        return newHold();
    }

    /**
     * Acquires the lock if it becomes free within {@code timeout} and returns the hold for try-with-resources; throws
     * {@link LockTimeoutException} if it does not, so that "not acquired" cannot be mistaken for a hold. As
     * {@link #acquire(Duration)} otherwise.
     *
     * @param timeout the longest time to wait; zero or negative makes a single try that never waits
     * @return the hold; closing it calls {@code release()}
     * @throws LockTimeoutException if the lock was not acquired in time (nothing is left behind)
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    public LockHold hold(Duration timeout) throws InterruptedException {
        if (!take(Deadline.after(Checks.toNanos(timeout)))) {
            throw new LockTimeoutException(lockName(), timeout);
        }
        return newHold();
    }

    /**
     * Returns this lock as a {@link Lock}, for code written against the JDK's interface: {@code lock()} waits through
     * interrupts (an interrupt makes it take a new place in the queue, and the flag is set again once it holds),
     * {@code lockInterruptibly()} and {@code tryLock(time, unit)} are {@link #acquire()} and
     * {@link #acquire(long, TimeUnit)}, {@code tryLock()} is a single try that never waits, {@code unlock()} is
     * {@code release()} (so a thread that does not hold the lock gets {@link IllegalMonitorStateException}), and
     * {@code newCondition()} throws {@link UnsupportedOperationException}. The adapter shares this lock's holds.
     *
     * @return a {@code Lock} view of this lock, the same object on every call; no ZooKeeper call until it is used
     */
    public Lock asLock() {
        return jdkLock;
    }

    private Lock newJdkLock() {
        return new JdkLock(new JdkLock.Target() {
            @Override
            public boolean acquire(Deadline deadline) throws InterruptedException {
                return take(deadline);
            }

            @Override
            public void release() {
                TimedLock.this.release();
            }

            @Override
            public String name() {
                return lockName();
            }
        });
    }

    /**
     * Releases the caller's hold; see the subclass for who the caller is and what a release costs.
     *
     * @throws IllegalMonitorStateException if the caller holds no lock
     * @throws ZkLockException if ZooKeeper refuses the delete
     */
    @Override
    public abstract void release();

    /**
     * Acquires until the deadline, the JVM's first acquires of virtual threads one at a time ({@link FirstUse}); true if
     * the caller now holds the lock.
     */
    private boolean take(Deadline deadline) throws InterruptedException {
        boolean first = FirstUse.enter(deadline);
        try {
            return acquire(deadline);
        } finally {
            if (first) {
                FirstUse.passed(Thread.currentThread());
            }
        }
    }

    /** Acquires until the deadline; true if the caller now holds the lock. */
    abstract boolean acquire(Deadline deadline) throws InterruptedException;

    /** Returns the caller's hold as a value; the caller holds the lock. */
    abstract LockHold newHold();

    /** Returns what messages call the lock: its path, or a multi-lock's paths. */
    abstract String lockName();
}
