package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.RevocationListener;

/**
 * A distributed exclusive lock on a ZooKeeper path, reentrant per thread: the zklock counterpart of Curator's
 * {@code InterProcessMutex}.
 *
 * <h2>Semantics</h2>
 *
 * <p>Holding the lock means our node is first in the queue of the lock path (as the {@link LockDriver} decides; the
 * default is {@link LockDriver#exclusive()}). Ownership is per thread: the thread that acquired must release, and may
 * acquire again any number of times, releasing as often. Waiters are served in ZooKeeper sequence order (FIFO). Nodes
 * are laid out as Curator's {@code InterProcessMutex} lays them out (protected {@code EPHEMERAL_SEQUENTIAL} children
 * {@code _c_<uuid>-lock-<sequence>} under container parents, honouring the client's namespace, ACL provider and
 * default data), so this lock and an {@code InterProcessMutex}, a {@link ZkExclusiveLock} or another
 * {@code ZkReentrantLock} on the same path exclude each other.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; ownership is per thread. Threads of one process that share an
 * instance each take their own place in the queue, and each waits on its own watch: one release wakes one waiter.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <ul>
 *   <li>uncontended acquire: one round trip (a create and a listing, pipelined: 2 requests), and one data read, not
 *       waited for, that sets the watch on our node which vouches for the hold while it is held (a hold that waited
 *       keeps the watch that vouched for it while it waited), so that another client's delete of it makes the hold
 *       LOST before another session can hold ({@code
 *       StrangerDeleteTest.holdGrantedAtOnce_whoseNodeAnotherClientDeletes_turnsLostBeforeAnotherSessionHolds}); with
 *       the release's delete, 4 requests per uncontended cycle, as Curator's 3 and that read
 *       ({@code RequestCountTest});
 *   <li>entering right behind a node of the same client (threads sharing one instance, or other instances on the
 *       client): the create alone, whose sequence shows the node ahead, so no listing carries the queue; behind
 *       another client's node, the create and then one listing;
 *   <li>re-entry, inner releases and the inspection methods other than {@link #participantNodes()}: none;
 *   <li>waiting: one data read that sets one watch on the node ahead; when that node goes and it was the only one
 *       ahead, or it held the lock in this process, the lock is taken with no further request, otherwise one listing
 *       decides again: 3 requests per acquisition (create, data read, delete) for threads of one client queued on one
 *       instance ({@code OwnPredecessorTest}), at most 5 when others interleave ({@code RequestCountTest}), where
 *       Curator's grow with the number of threads (its releases wake every local waiter; BENCHMARKS.md);
 *   <li>release: one request (a delete);
 *   <li>an acquire that gives up (timeout, interrupt, error): one delete, and one watch removal if it was waiting.
 * </ul>
 *
 * <p>One watch is held while waiting. A plain hold keeps none; a revocable hold keeps one data watch on its node, and
 * with local hand-off the cohort's node keeps a child watch on the lock path while local threads wait for it or it is
 * kept idle, and one data watch on itself once another process waits behind it.
 *
 * <p>Built with {@link #builder(CuratorFramework, String)} and {@link ZkLockBuilder#localHandOff()}, the threads of
 * this process that share the instance pass the lock among themselves behind one node, with no request per pass, within
 * a bound once another process waits; with {@link ZkLockBuilder#keepIdle(Duration)} the node is also kept while idle.
 * The costs above then apply per node, not per acquisition, plus the child watch's listings of the lock path while
 * local threads wait or the node is kept, and one data read that watches the node itself once another process waits
 * behind it; an uncontended acquire and release cost what a plain one does ({@code SpringRequestCountTest}); see
 * {@link ZkLockBuilder}.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>The node is ephemeral: the lock is held while the session that created it lives. A lost connection that comes
 * back within the session timeout changes nothing; while the connection is SUSPENDED the holder cannot know whether
 * the session survives, so work that must never overlap should be fenced with {@link #fencingToken()}, which is larger
 * for every later hold of the path across the whole ensemble, local passes included ({@link FencingToken}). A hold is
 * granted only while the client is started,
 * the connection is up and our node is ours and HELD: a node granted while the connection is suspended is held only
 * once the reconnect finds it standing (the acquire waits for that within its timeout, then gives up and deletes it),
 * and a client closed while an acquire waits ends it with {@link IllegalStateException} ({@code AdmissionTest},
 * {@code SessionFaultsTest}). If the session expires, the node is gone and another
 * client may take the lock. A waiter whose session expires enters the queue again with a new node. An interrupted or
 * timed-out acquire, and one that fails, deletes its node before returning; release deletes with a guaranteed delete,
 * handed to Curator's background retry if the connection is down, so the node never outlives the hold for longer than
 * the outage. Closing the client ends the session and with it every node.
 *
 * <p>A lost hold stays the thread's until it releases it: {@link #holdState()} says {@link LockState#LOST}, while
 * {@link #isHeldByCurrentThread()}, {@link #isOwnedByCurrentThread()} and {@link #isAcquiredInThisProcess()} stay true
 * until {@link #release()}, as Curator's {@code InterProcessMutex} answers; so Curator's usual ending,
 * {@code finally { if (lock.isAcquiredInThisProcess()) lock.release(); }}, releases it and the thread can acquire again
 * ({@code LostHoldIdiomTest}). An acquire by a thread whose hold is lost and not yet released throws
 * {@link IllegalStateException}: a thread must not go on as if it still held the lock (Curator counts such an acquire
 * as a re-entry).
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkReentrantLock lock = new ZkReentrantLock(client, "/locks/orders");
 * if (lock.acquire(Duration.ofSeconds(5))) {
 *     try {
 *         store.write(order, lock.fencingToken());
 *     } finally {
 *         lock.release();
 *     }
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkReentrantLock extends ThreadOwnedLock {
    private static final String LOCK_NAME = "lock-";

    /**
     * Creates a lock on {@code path} with the {@linkplain LockDriver#exclusive() exclusive} driver. No ZooKeeper call;
     * the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkReentrantLock(CuratorFramework client, String path) {
        this(client, path, LockDriver.exclusive());
    }

    /**
     * Creates a lock on {@code path} whose holder is decided by {@code driver}. No ZooKeeper call.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @param driver decides who holds the lock and which node a waiter watches
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkReentrantLock(CuratorFramework client, String path, LockDriver driver) {
        super(LockCore.of(new LockPath(client, path, LOCK_NAME, driver, null)));
    }

    private ZkReentrantLock(LockCore core) {
        super(core);
    }

    /**
     * Returns a builder of a lock on {@code path}, for the options a constructor does not take: local hand-off among
     * the threads of this process, caching of an idle node ({@link ZkLockBuilder}), a driver, node data. No ZooKeeper
     * call.
     *
     * <pre>{@code
     * ZkReentrantLock lock = ZkReentrantLock.builder(client, "/locks/orders").localHandOff().build();
     * }</pre>
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @return a builder with no option set: it builds a lock like {@code new ZkReentrantLock(client, path)}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public static Builder builder(CuratorFramework client, String path) {
        return new Builder(client, path);
    }

    /**
     * A registry's lock: the exclusive driver, local hand-off with {@code settings} (none if null), and, unless
     * {@code viewRoot} is null, the client's queue view under {@code viewRoot}, the registry's base path: one watch for
     * every key.
     */
    static ZkReentrantLock forRegistry(CuratorFramework client, String path, CohortSettings settings, String viewRoot) {
        Builder builder = new Builder(client, path);
        if (viewRoot != null) {
            builder.queueViewUnder(viewRoot);
        }
        return builder.build(settings);
    }

    /**
     * Builds a {@link ZkReentrantLock}; see {@link ZkLockBuilder} for the options it shares with every lock builder.
     * Not thread-safe.
     *
     * @since 0.1.0
     */
    public static final class Builder extends ZkLockBuilder<Builder, ZkReentrantLock> {
        private LockDriver driver = LockDriver.exclusive();
        private byte[] lockData; // null: the client's default data, as Curator's InterProcessMutex uses

        private Builder(CuratorFramework client, String path) {
            super(client, path);
        }

        /**
         * Gives every node of the lock {@code lockData} instead of the client's default data: what an
         * {@code InterProcessMutex} subclass that overrides {@code getLockNodeBytes()} gives its nodes (for example the
         * holder's name, which {@code zklock inspect} shows).
         *
         * @param lockData the data; copied, so later changes to the array do not matter
         * @return this builder
         * @throws NullPointerException if {@code lockData} is null
         */
        public Builder lockData(byte[] lockData) {
            this.lockData = Objects.requireNonNull(lockData, "lockData").clone();
            return this;
        }

        /**
         * Sets the driver that decides who holds the lock and which node a waiter watches.
         *
         * @param driver the driver; {@link LockDriver#exclusive()} by default
         * @return this builder
         * @throws NullPointerException if {@code driver} is null
         */
        public Builder driver(LockDriver driver) {
            this.driver = Objects.requireNonNull(driver, "driver");
            return this;
        }

        @Override
        public ZkReentrantLock build() {
            return build(cohortSettings());
        }

        private ZkReentrantLock build(CohortSettings settings) {
            LockPath lockPath = new LockPath(client(), path(), LOCK_NAME, driver, lockData);
            if (usesQueueView()) {
                lockPath.useQueueView(viewRoot());
            }
            return new ZkReentrantLock(
                    settings == null ? LockCore.of(lockPath) : LockCore.withCohort(lockPath, settings, false, null));
        }
    }

    /**
     * Makes this lock revocable: every hold granted after this call keeps a data watch on its node, and a request to let
     * go (Curator's {@code Revoker.attemptRevoke(client, nodePath)}, or {@link Revocation#request}) calls
     * {@code listener} once per request, on the common fork-join pool, never on ZooKeeper's event thread. Revocation is
     * cooperative: the listener decides whether and when the holder releases. With local hand-off a request also ends
     * local passing: the node goes after its current holder, so the requester gets in before the next local thread
     * ({@code AdmissionTest}). Costs one data read per hold (per node, with local hand-off), and one per request; a lock
     * not made revocable costs nothing for it.
     *
     * @param listener told of each request, with this lock
     * @throws NullPointerException if {@code listener} is null
     */
    public void makeRevocable(RevocationListener<? super ZkReentrantLock> listener) {
        makeRevocable(listener, ForkJoinPool.commonPool());
    }

    /**
     * Makes this lock revocable, its listener run on {@code executor}; see {@link #makeRevocable(RevocationListener)}.
     *
     * @param listener told of each request, with this lock
     * @param executor runs the listener; it must not run it on the calling thread if that may be ZooKeeper's event
     *     thread and the listener blocks
     * @throws NullPointerException if an argument is null
     */
    public void makeRevocable(RevocationListener<? super ZkReentrantLock> listener, Executor executor) {
        Objects.requireNonNull(listener, "listener");
        revocable(() -> listener.revocationRequested(this), executor);
    }

    /**
     * Asks whoever holds this lock's path to let go, as each holder's node is listed now (Curator's holders too, if they made
     * their lock revocable). One listing, and one request per holder.
     *
     * @return how many holders were asked
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws ZkLockException if ZooKeeper refuses the listing or a write
     */
    public int requestRevocation() throws InterruptedException {
        return Revocation.requestOfHolders(core.path());
    }

    @Override
    public String toString() {
        return "ZkReentrantLock[" + path() + "]";
    }
}
