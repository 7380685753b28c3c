package dev.zklock.recipes.locks;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * A distributed exclusive lock on a ZooKeeper path that is not reentrant and belongs to the instance, not to a thread:
 * the zklock counterpart of Curator's {@code InterProcessSemaphoreMutex}, for a hold that one thread takes and another
 * releases.
 *
 * <h2>Semantics</h2>
 *
 * <p>Holding the lock means our node is first in the queue of the lock path. The lock is not reentrant: an acquire by
 * the thread that holds it waits like anyone else's (a timed one times out). Any thread of the process may release the
 * hold. Waiters are served in ZooKeeper sequence order (FIFO). Nodes are laid out as Curator's
 * {@code InterProcessMutex} lays them out ({@code _c_<uuid>-lock-<sequence>}), so this lock excludes an
 * {@code InterProcessMutex}, a {@link ZkReentrantLock} or another {@code ZkExclusiveLock} on the same path. (Curator's
 * {@code InterProcessSemaphoreMutex} uses another layout, a semaphore, and does not share a path with these.)
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; ownership is per instance: at most one hold at a time, which any
 * thread may release.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>As {@link ZkReentrantLock}: one round trip for an uncontended acquire (2 pipelined requests), one watch and one
 * data read while waiting, no further request when the only node ahead goes, one listing otherwise, one delete to
 * release, and one delete (plus one watch removal) when an acquire gives up.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>As {@link ZkReentrantLock}: the hold lives as long as the session that created the node; use
 * {@link #fencingToken()} to fence work that must never overlap; a timed-out, interrupted or failed acquire deletes its
 * node; release is a guaranteed delete.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkExclusiveLock lock = new ZkExclusiveLock(client, "/locks/nightly-job");
 * if (lock.acquire(0, TimeUnit.SECONDS)) {          // one try, never waits
 *     executor.submit(() -> {
 *         try {
 *             runJob();
 *         } finally {
 *             lock.release();                      // from another thread: allowed
 *         }
 *     });
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkExclusiveLock implements InterProcessLock {
    private static final String LOCK_NAME = "lock-";

    private final LockQueue queue;
    private final AtomicReference<LockNode> hold = new AtomicReference<>();

    /**
     * Creates a lock on {@code path}. No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkExclusiveLock(CuratorFramework client, String path) {
        this.queue = new LockQueue(client, path, LOCK_NAME, LockDriver.exclusive(), null);
    }

    /**
     * Acquires the lock, waiting as long as it takes; an acquire by the holder waits for its own release.
     *
     * <p>The wait ends when the lock becomes ours; or, after our node is deleted, with {@link InterruptedException}
     * when the thread is interrupted or {@link ZkLockException} when ZooKeeper refuses a request.
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
     * Acquires the lock if it becomes free within {@code time}; otherwise deletes our node and returns {@code false}.
     * A time of zero or less makes a single try that never waits. The method returns within the time plus one request
     * timeout (the client's connection timeout).
     *
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return {@code true} if this instance now holds the lock, {@code false} if the time ran out first
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
     * @return {@code true} if this instance now holds the lock, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public boolean acquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(timeout)));
    }

    /**
     * Releases the hold of this instance, from any thread: deletes our node (one request), which wakes the next waiter.
     * If the connection is down, the delete is left to Curator's guaranteed delete and the method returns normally.
     *
     * @throws IllegalMonitorStateException if this instance holds no lock
     * @throws ZkLockException if ZooKeeper refuses the delete (for example for lack of permission)
     */
    @Override
    public void release() {
        LockNode node = hold.getAndSet(null);
        if (node == null) {
            throw HoldCounts.notHeld(queue.path());
        }
        queue.release(node);
    }

    /**
     * Tells whether this instance holds the lock. For monitoring, not for synchronization control; no ZooKeeper call.
     *
     * @return {@code true} if this instance holds the lock
     */
    @Override
    public boolean isAcquiredInThisProcess() {
        return hold.get() != null;
    }

    /**
     * Returns the fencing token of this instance's hold: the creation zxid of our node, larger for every later
     * acquisition of this path across the whole ensemble. No ZooKeeper call.
     *
     * @return the token, a positive number
     * @throws IllegalMonitorStateException if this instance holds no lock
     */
    public long fencingToken() {
        return Optional.ofNullable(hold.get())
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

    private boolean acquire(Deadline deadline) throws InterruptedException {
        Optional<LockNode> node = queue.acquire(deadline);
        node.ifPresent(hold::set);
        return node.isPresent();
    }

    @Override
    public String toString() {
        return "ZkExclusiveLock[" + queue.path() + "]";
    }
}
