package dev.zklock.cli.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Not a ZooKeeper lock: a JDK fair {@code ReentrantLock} in the shape of Curator's {@code InterProcessLock}, so the
 * bench can pass it among the same threads as a lock object with local hand-off, and show what passing a lock within
 * one process costs with no ZooKeeper at all. Fair, so that each release hands the lock to the longest waiting thread,
 * in FIFO order as a cohort does. Safe for use by multiple threads; ownership is per thread.
 */
final class JdkFairLock implements InterProcessLock {
    private final ReentrantLock lock = new ReentrantLock(true);

    @Override
    public void acquire() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(time, unit);
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
