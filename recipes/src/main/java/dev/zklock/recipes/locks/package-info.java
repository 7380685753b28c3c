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
 * {@code InterProcessSemaphoreV2}, and {@link dev.zklock.recipes.locks.ZkExclusiveLock#semaphoreMutex} is a semaphore
 * of one lease on the layout of Curator's {@code InterProcessSemaphoreMutex}. Every lock implements
 * Curator's {@code InterProcessLock} and lays out its nodes as Curator does (protected {@code EPHEMERAL_SEQUENTIAL}
 * children named {@code _c_<uuid>-lock-<sequence>}, or {@code __READ__}/{@code __WRIT__} for read/write locks, under
 * container parents), so a zklock lock and its Curator counterpart on the same path exclude each other (for Curator's
 * {@code InterProcessSemaphoreMutex}, a {@code ZkExclusiveLock} made with {@code semaphoreMutex}). Each lock
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
 * ({@link dev.zklock.recipes.locks.LockStates}), and a fencing token that grows with every exclusive or write
 * acquisition of a path ({@link dev.zklock.recipes.locks.FencingToken}).
 * {@link dev.zklock.recipes.locks.LockMetrics} takes metrics listeners
 * ({@link dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics} for Micrometer, an optional dependency).
 *
 * <p><b>Null policy.</b> No method of this package accepts {@code null} for any parameter, and no method returns
 * {@code null} but the timed {@code acquire(..., long, TimeUnit)} methods of {@link dev.zklock.recipes.locks.ZkSemaphore},
 * which answer {@code null} when no lease came in time, as Curator's do (their {@code Duration} forms answer an empty
 * {@code Optional}); a {@code null} argument is rejected with a {@link java.lang.NullPointerException} that names the
 * parameter.
 *
 * <p><b>Thread safety.</b> Every type of this package is safe for use by multiple threads. Each lock type states
 * whether ownership is per thread or per instance.
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
