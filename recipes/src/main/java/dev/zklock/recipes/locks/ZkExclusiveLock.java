package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LeaseQueue;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.holds.HoldCounts;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;

/**
 * A distributed exclusive lock on a ZooKeeper path that is not reentrant and belongs to the instance, not to a thread:
 * the zklock counterpart of Curator's {@code InterProcessSemaphoreMutex}, for a hold that one thread takes and another
 * releases.
 *
 * <h2>Semantics</h2>
 *
 * <p>The lock is not reentrant: an acquire by the thread that holds it waits like anyone else's (a timed one times
 * out). Any thread of the process may release the hold. Waiters are served in ZooKeeper sequence order (FIFO).
 *
 * <p>Two node layouts, chosen when the lock is made:
 *
 * <ul>
 *   <li>The semaphore-mutex layout ({@link #ZkExclusiveLock(CuratorFramework, String)}, the default): the layout of
 *       Curator's {@code InterProcessSemaphoreMutex}, a semaphore of one lease (a lease under {@code <path>/leases},
 *       taken behind a mutex at {@code <path>/locks}). It excludes an {@code InterProcessSemaphoreMutex}, a
 *       {@link ZkSemaphore} of one lease and another default {@code ZkExclusiveLock} on the same path, both ways: the
 *       constructor a team reaches for when it replaces Curator's non-reentrant lock holds beside none of them
 *       ({@code ExclusiveLayoutTest}).
 *   <li>The mutex layout ({@link #mutexLayout(CuratorFramework, String)}): nodes laid out as Curator's
 *       {@code InterProcessMutex} lays them out ({@code _c_<uuid>-lock-<sequence>} under the path). It excludes an
 *       {@code InterProcessMutex}, a {@link ZkReentrantLock} and another mutex-layout {@code ZkExclusiveLock} on the
 *       same path, and costs half the requests; it does <em>not</em> exclude an {@code InterProcessSemaphoreMutex}.
 * </ul>
 *
 * <p>The two layouts on one path would not exclude each other, so neither holds where it finds the other's nodes: an
 * acquire that finds them in the listing it makes after its create gives up at once, leaves no node behind, and throws
 * {@link ZkLockException} naming both layouts and the factory to use ({@code ExclusiveLayoutTest}). Of two zklock locks
 * of different layouts on one path, the one that lists second sees the other; a Curator lock does not look, so it is
 * refused only when zklock's lock comes second.
 *
 * <p>Earlier builds of zklock (0.1.0 snapshots before this layout change) made the mutex layout with the constructor. A
 * fleet that upgrades keeps that layout with {@link #mutexLayout}; a process of the new build that meets an old one's
 * nodes on the path refuses, as above.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; ownership is per instance: at most one hold at a time, which any
 * thread may release.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>Semaphore-mutex layout, as {@link ZkSemaphore}: 7 requests for an uncontended acquire and release, one of them the
 * read that vouches for the lease (Curator's {@code InterProcessSemaphoreMutex}: 7; {@code
 * SemaphoreRequestCountTest}), two round trips to acquire; the mutex's
 * listing reads the lock path beside in the same request, for the layout check; the mutex's waiters watch one node
 * each, and only its holder watches the leases. Mutex layout, as {@link ZkReentrantLock}: one round trip for an
 * uncontended acquire (2 pipelined requests, and the voucher's read, not waited for), one watch and one data read while waiting, no listing to enter right
 * behind a node of the same client, no further request when the only node ahead goes, one listing otherwise, one delete
 * to release, and one delete (plus one watch removal) when an acquire gives up.
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
public final class ZkExclusiveLock extends AbstractZkLock {
    private static final String LOCK_NAME = "lock-";

    private final AtomicReference<Hold> hold = new AtomicReference<>();
    private final String semaphorePath; // null in the mutex layout

    /**
     * Creates a lock on {@code path} in the semaphore-mutex layout of Curator's {@code InterProcessSemaphoreMutex}: it
     * excludes an {@code InterProcessSemaphoreMutex} on the same path, both ways (see the class documentation for the
     * faster {@link #mutexLayout}). {@link #participantNodes()} lists the leases, and the fencing token is made of the
     * lease node's creation zxid ({@link FencingToken}). No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkExclusiveLock(CuratorFramework client, String path) {
        this(new LeaseQueue(Objects.requireNonNull(client, "client"), path, () -> 1, new CopyOnWriteArrayList<>()));
    }

    private ZkExclusiveLock(LockPath mutex) {
        super(LockCore.of(mutex));
        this.semaphorePath = null;
    }

    private ZkExclusiveLock(LeaseQueue semaphore) {
        super(LockCore.of(
                semaphore.leases(),
                deadline -> semaphore.acquire(1, deadline).map(leases -> leases.get(0)),
                (deadline, timeout) -> semaphore.acquireAsync(1, deadline, timeout)));
        this.semaphorePath = semaphore.path();
    }

    /**
     * Creates a lock on {@code path} in the mutex layout of Curator's {@code InterProcessMutex}: it excludes an
     * {@code InterProcessMutex}, a {@link ZkReentrantLock} and another mutex-layout lock on the same path, costs half
     * the requests of the default layout, and does <em>not</em> exclude Curator's {@code InterProcessSemaphoreMutex} or
     * a default {@code ZkExclusiveLock} (see the class documentation: where it finds their nodes it refuses). Every
     * method behaves as in the default layout; {@link #participantNodes()} lists the queue, and the fencing token is
     * made of our node's creation zxid ({@link FencingToken}). No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @return a lock in the mutex layout
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public static ZkExclusiveLock mutexLayout(CuratorFramework client, String path) {
        return new ZkExclusiveLock(new LockPath(client, path, LOCK_NAME, LockDriver.exclusive(), null));
    }

    /**
     * Creates a lock on {@code path} in the semaphore-mutex layout of Curator's {@code InterProcessSemaphoreMutex}, as
     * {@link #ZkExclusiveLock(CuratorFramework, String)} does; kept for code written when the mutex layout was the
     * default. No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @return a lock in the semaphore-mutex layout
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public static ZkExclusiveLock semaphoreMutex(CuratorFramework client, String path) {
        return new ZkExclusiveLock(client, path);
    }

    /**
     * Returns the lock path, relative to the client's namespace (in the semaphore-mutex layout, the semaphore's path,
     * the parent of its {@code locks} and {@code leases}).
     *
     * @return the path given when the lock was made
     */
    @Override
    public String path() {
        return semaphorePath != null ? semaphorePath : super.path();
    }

    /**
     * Releases the hold of this instance, from any thread: deletes our node (one request), which wakes the next waiter.
     * If the connection is down, the delete is left to Curator's guaranteed delete and the method returns normally.
     * Releasing a {@linkplain LockState#LOST lost} hold clears it and deletes what may be left of its node,
     * throwing nothing for a node already gone.
     *
     * @throws IllegalMonitorStateException if this instance holds no lock
     * @throws ZkLockException if ZooKeeper refuses the delete (for example for lack of permission)
     */
    @Override
    public void release() {
        Hold released = hold.getAndSet(null);
        if (released == null) {
            throw HoldCounts.notHeld(path());
        }
        core.release(released, released.heldNanos());
    }

    /**
     * Tells whether this instance holds the lock: from an acquire until the release, a {@linkplain LockState#LOST lost}
     * hold included, as Curator's {@code InterProcessSemaphoreMutex} answers, so that the usual ending
     * {@code finally { if (lock.isAcquiredInThisProcess()) lock.release(); }} releases a lost hold too and the next
     * acquire can go ahead ({@code LostHoldIdiomTest}). Whether the hold still stands is {@link #holdState()}'s answer.
     * For monitoring, not for synchronization control; no ZooKeeper call.
     *
     * @return {@code true} if this instance holds the lock and has not released it yet
     */
    @Override
    public boolean isAcquiredInThisProcess() {
        return hold.get() != null;
    }

    @Override
    Hold currentHold() {
        return hold.get();
    }

    @Override
    boolean acquire(Deadline deadline) throws InterruptedException {
        core.requireNotLost(hold.get());
        Optional<Hold> granted = core.acquire(deadline);
        granted.ifPresent(hold::set);
        return granted.isPresent();
    }

    @Override
    String lockName() {
        return path();
    }

    @Override
    public String toString() {
        return "ZkExclusiveLock[" + path() + (semaphorePath != null ? ", semaphore-mutex layout]" : ", mutex layout]");
    }
}
