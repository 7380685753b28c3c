/**
 * ZooKeeper lock recipes that run beside Apache Curator on the same {@code CuratorFramework}.
 *
 * <p>The locks: {@link dev.zklock.recipes.locks.ZkReentrantLock} (exclusive, reentrant per thread, like Curator's
 * {@code InterProcessMutex}), {@link dev.zklock.recipes.locks.ZkExclusiveLock} (exclusive, not reentrant, owned by the
 * instance), {@link dev.zklock.recipes.locks.ZkReadWriteLock} (readers share, writers exclude, FIFO, downgrade) and
 * {@link dev.zklock.recipes.locks.ZkMultiLock} (several locks as one, over paths in one ZooKeeper transaction or over
 * arbitrary locks), and {@link dev.zklock.recipes.locks.ZkLockRegistry} for a lock per key;
 * {@link dev.zklock.recipes.locks.ZkSemaphore} hands out up to a number of leases
 * ({@link dev.zklock.recipes.locks.ZkLease}, Curator's {@code Lease}) on the layout of Curator's
 * {@code InterProcessSemaphoreV2}; a {@code ZkExclusiveLock} is a semaphore of one lease on the layout of Curator's
 * {@code InterProcessSemaphoreMutex} (or, made with {@code mutexLayout}, a queue on {@code InterProcessMutex}'s). Every
 * lock (for a read/write lock, its
 * read lock and its write lock, as with Curator) implements Curator's {@code InterProcessLock} and lays out its nodes
 * as Curator does (protected {@code EPHEMERAL_SEQUENTIAL}
 * children named {@code _c_<uuid>-lock-<sequence>}, or {@code __READ__}/{@code __WRIT__} for read/write locks, under
 * container parents), so a zklock lock and its Curator counterpart on the same path exclude each other; a lock that
 * finds the nodes of the other exclusive layout on its path, which it would not exclude, refuses with
 * {@link dev.zklock.recipes.locks.ZkLockException}. Each lock
 * also offers {@code hold()} for try-with-resources ({@link dev.zklock.recipes.locks.LockHold}), {@code asLock()} for
 * code written against {@link java.util.concurrent.locks.Lock}, and (single-path locks) {@code acquireAsync()}.
 *
 * <p>Who holds a lock is decided by a {@link dev.zklock.recipes.locks.LockDriver}; the built-in drivers are
 * {@link dev.zklock.recipes.locks.LockDriver#exclusive()}, {@link dev.zklock.recipes.locks.LockDriver#read()} and
 * {@link dev.zklock.recipes.locks.LockDriver#write()}. {@link dev.zklock.recipes.locks.LockNodeName} reads a lock
 * node's name as they and Curator read it (protection id, lock name, sequence), for tools that inspect a queue.
 *
 * <p>The engine behind the locks lives in {@code dev.zklock.recipes.locks.engine}: not API, left out of this javadoc.
 *
 * <p>What a holder can know: each hold has a {@link dev.zklock.recipes.locks.LockState} (HELD, IN_DOUBT while the
 * connection is suspended, LOST once the session ended), heard through
 * {@link dev.zklock.recipes.locks.LockStateListener}s on a lock or on every lock of a client
 * ({@link dev.zklock.recipes.locks.LockStates}), and a fencing token that is larger for every later exclusive or
 * write hold of a path, local passes of a cohort included ({@link dev.zklock.recipes.locks.FencingToken}).
 * {@link dev.zklock.recipes.locks.LockMetrics} takes metrics listeners
 * ({@link dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics} for Micrometer, an optional dependency).
 *
 * <p><b>Null policy.</b> No method of this package accepts {@code null} for a parameter, and a {@code null} argument is
 * rejected with a {@link java.lang.NullPointerException} that names the parameter; the one exception is the
 * constructor of {@link dev.zklock.recipes.locks.ZkLockException}, whose lock path, code and cause may be {@code null}
 * (for a failure with no lock path, no ZooKeeper code or no cause). No method returns {@code null} but these, each where Curator's
 * counterpart does: {@code getLockPath()} of the per-thread locks when the current thread holds nothing (Curator's
 * {@code InterProcessMutex.getLockPath()}); the timed {@code acquire(..., long, TimeUnit)} methods of
 * {@link dev.zklock.recipes.locks.ZkSemaphore} when no lease came in time (their {@code Duration} forms answer an empty
 * {@code Optional}); and {@link dev.zklock.recipes.locks.ZkLockException#lockPath()} for a failure with no lock path.
 *
 * <p><b>Thread safety.</b> Every lock, hold, lease, registry, listener registry, value and driver type of this package
 * is safe for use by multiple threads, and each lock type states whether ownership is per thread or per instance.
 * The builders ({@link dev.zklock.recipes.locks.ZkLockBuilder} and its subclasses) are not: confine a builder to one
 * thread.
 *
 * <p><b>Exceptions.</b> Methods that talk to ZooKeeper throw {@link java.lang.InterruptedException} when interrupted
 * (after deleting whatever they created) and {@link dev.zklock.recipes.locks.ZkLockException} when ZooKeeper refuses a
 * request; a timed acquire that runs out of time returns {@code false} ({@code hold(Duration)} throws
 * {@link dev.zklock.recipes.locks.LockTimeoutException}). Bad arguments and states get
 * {@link java.lang.NullPointerException}, {@link java.lang.IllegalArgumentException},
 * {@link java.lang.IllegalStateException} or {@link java.lang.IllegalMonitorStateException}, with the offending value
 * and the lock path in the message, before any ZooKeeper call.
 */
package dev.zklock.recipes.locks;
