package dev.zklock.cli.bench;

import dev.zklock.recipes.locks.ZkSemaphore;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * One lease of a semaphore as an {@link InterProcessLock}, so that the bench loops a semaphore as it loops a lock:
 * acquire takes one lease, release returns it. Holds one lease at a time; confined to one contender's thread.
 */
final class LeaseLock implements InterProcessLock {
    /** Takes one lease, within a time or as long as it takes (a null unit). */
    @FunctionalInterface
    private interface Taker {
        Lease take(long time, TimeUnit unit) throws Exception;
    }

    /** Returns one lease. */
    @FunctionalInterface
    private interface Returner {
        void giveBack(Lease lease) throws Exception;
    }

    private final Taker taker;
    private final Returner returner;
    private Lease lease;

    private LeaseLock(Taker taker, Returner returner) {
        this.taker = taker;
        this.returner = returner;
    }

    /** One lease of a zklock semaphore. */
    static LeaseLock of(ZkSemaphore semaphore) {
        return new LeaseLock(
                (time, unit) -> unit == null ? semaphore.acquire() : semaphore.acquire(time, unit),
                semaphore::returnLease);
    }

    /** One lease of a Curator semaphore. */
    static LeaseLock of(InterProcessSemaphoreV2 semaphore) {
        return new LeaseLock(
                (time, unit) -> unit == null ? semaphore.acquire() : semaphore.acquire(time, unit),
                semaphore::returnLease);
    }

    @Override
    public void acquire() throws Exception {
        lease = taker.take(0, null);
    }

    @Override
    public boolean acquire(long time, TimeUnit unit) throws Exception {
        lease = taker.take(time, unit);
        return lease != null;
    }

    @Override
    public void release() throws Exception {
        Lease held = lease;
        if (held == null) {
            throw new IllegalStateException("no lease held");
        }
        lease = null;
        returner.giveBack(held);
    }

    @Override
    public boolean isAcquiredInThisProcess() {
        return lease != null;
    }
}
