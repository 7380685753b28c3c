package dev.zklock.recipes.locks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * What every lock owned per thread shares: local hold counts, so that re-entry and inner releases cost no ZooKeeper
 * call, on top of one {@link LockQueue}. Safe for use by multiple threads; ownership is per thread.
 */
abstract class ThreadOwnedLock implements InterProcessLock {
    final LockQueue queue;
    final HoldCounts<LockNode> holds;

    ThreadOwnedLock(LockQueue queue) {
        this.queue = queue;
        this.holds = new HoldCounts<>(queue.path());
    }

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * <p>If the current thread holds the lock, the hold count goes up by one and the method returns at once, with no
     * ZooKeeper call. Otherwise the thread takes a place in the queue and waits until one of these happens:
     *
     * <ul>
     *   <li>the lock becomes ours;
     *   <li>the thread is interrupted: our node is deleted and {@link InterruptedException} is thrown;
     *   <li>ZooKeeper refuses a request: our node is deleted and {@link ZkLockException} is thrown.
     * </ul>
     *
     * <p>Cost: see the class documentation.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws IllegalStateException if the client is not started or is closed
     */
    @Override
    public void acquire() throws InterruptedException {
        acquire(Deadline.forever());
    }

    /**
     * Acquires the lock if it becomes free within {@code time}.
     *
     * <p>As {@link #acquire()}, but the wait also ends when the time runs out: then our node is deleted and the method
     * returns {@code false}. A time of zero or less makes a single try that never waits, like
     * {@link java.util.concurrent.locks.Lock#tryLock()}. The time covers creating our node, recovering from a lost
     * connection and waiting; the method returns within it plus one request timeout (the client's connection timeout).
     *
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return {@code true} if the lock is now held by the current thread, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(time, unit)));
    }

    /**
     * Acquires the lock if it becomes free within {@code timeout}; see {@link #acquire(long, TimeUnit)}.
     *
     * @param timeout the longest time to wait; zero or negative makes a single try that never waits
     * @return {@code true} if the lock is now held by the current thread, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public boolean acquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(timeout)));
    }

    /**
     * Releases one hold of the current thread. When the hold count reaches zero our node is deleted (one request) and
     * the next waiter is woken; inner releases cost nothing. If the connection is down, the delete is left to Curator's
     * guaranteed delete, which retries when the connection comes back, and the method returns normally: the local hold
     * is gone either way. A release after the client was closed only clears the local hold.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws ZkLockException if ZooKeeper refuses the delete (for example for lack of permission)
     */
    @Override
    public void release() {
        LockNode node = holds.release();
        if (node != null) {
            queue.release(node);
        }
    }

    /**
     * Tells whether any thread of this process holds the lock through this instance. For monitoring, not for
     * synchronization control; no ZooKeeper call.
     *
     * @return {@code true} if some thread holds this lock instance
     */
    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    /**
     * Tells whether the current thread holds the lock. No ZooKeeper call.
     *
     * @return {@code true} if the current thread holds this lock
     */
    public boolean isHeldByCurrentThread() {
        return holds.heldByCurrentThread() != null;
    }

    /**
     * Returns the number of holds of the current thread: acquisitions not yet matched by a release. No ZooKeeper call.
     *
     * @return the hold count, or zero if the current thread does not hold the lock
     */
    public int getHoldCount() {
        return holds.holdCount();
    }

    /**
     * Returns the fencing token of the current thread's hold: the creation zxid of our node, which is larger for every
     * later acquisition of this path, across the whole ensemble and even after the container parent was reaped and
     * made again. Pass it with every write to a resource the lock protects, and have the resource reject a token
     * smaller than the largest it has seen. No ZooKeeper call.
     *
     * @return the token, a positive number
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     */
    public long fencingToken() {
        return Optional.ofNullable(holds.heldByCurrentThread())
                .orElseThrow(() -> HoldCounts.notHeld(queue.path()))
                .token();
    }

    /**
     * Returns the full paths of the nodes in the queue, holder first: for monitoring, not for synchronization control.
     * One listing.
     *
     * @return the paths in queue order (relative to the client's namespace), empty if the lock path does not exist
     * @throws InterruptedException if the thread is interrupted while listing
     * @throws ZkLockException if ZooKeeper refuses the listing
     */
    public List<String> participantNodes() throws InterruptedException {
        return queue.participantNodes();
    }

    /**
     * Returns the lock path, relative to the client's namespace.
     *
     * @return the path given to the constructor
     */
    public String path() {
        return queue.path();
    }

    void setHooks(QueueHooks hooks) {
        queue.setHooks(hooks);
    }

    /** Takes the first hold of the current thread: by default a place in the queue. */
    Optional<LockNode> enter(Deadline deadline) throws InterruptedException {
        return queue.acquire(deadline);
    }

    private boolean acquire(Deadline deadline) throws InterruptedException {
        if (holds.reenter()) {
            return true;
        }
        Optional<LockNode> node = enter(deadline);
        node.ifPresent(holds::hold);
        return node.isPresent();
    }
}
