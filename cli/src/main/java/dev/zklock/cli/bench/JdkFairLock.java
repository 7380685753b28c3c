package dev.zklock.cli.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Not a ZooKeeper lock: a JDK fair {@code ReentrantLock} in the shape of Curator's {@code InterProcessLock}, so the
 * bench can pass it among the same threads as a lock object with local hand-off, and show what passing a lock within
 * one process costs with no ZooKeeper at all. Fair, so that each release hands the lock to the longest waiting thread,
 * in FIFO order as a cohort does. Safe for use by multiple threads; ownership is per thread.
 *
 * <p>It counts the acquires that, as they were asked, found the lock free and no thread queued: those take it with no
 * park, where a lock with local hand-off and no idle time gives its node back to ZooKeeper each time its local queue
 * empties. Two volatile reads per acquire, outside the lock.
 */
final class JdkFairLock implements InterProcessLock {
    private final ReentrantLock lock = new ReentrantLock(true);
    private final LongAdder foundFree = new LongAdder();

    @Override
    public void acquire() throws InterruptedException {
        countIfFree();
        lock.lockInterruptibly();
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        countIfFree();
        return lock.tryLock(time, unit);
    }

    /** Returns the acquires that found the lock free and nobody queued since the last call, and starts again. */
    long takeFoundFree() {
        return foundFree.sumThenReset();
    }

    private void countIfFree() {
        if (!lock.isLocked() && !lock.hasQueuedThreads()) {
            foundFree.increment();
        }
    }

    @Override
    public void release() {
        lock.unlock();
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lock.isLocked();
    }
}
