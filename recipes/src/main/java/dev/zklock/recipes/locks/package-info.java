/**
 * ZooKeeper lock recipes that run beside Apache Curator on the same {@code CuratorFramework}: an exclusive lock that is
 * reentrant per thread ({@link dev.zklock.recipes.locks.ZkReentrantLock}), a non-reentrant exclusive lock
 * ({@link dev.zklock.recipes.locks.ZkExclusiveLock}) and the {@link dev.zklock.recipes.locks.LockDriver} extension
 * point that decides who holds a lock.
 *
 * <p>Every lock implements Curator's {@code InterProcessLock} and lays out its nodes as Curator does (protected
 * {@code EPHEMERAL_SEQUENTIAL} children named {@code _c_<uuid>-lock-<sequence>} under container parents), so a zklock
 * lock and a Curator lock on the same path exclude each other.
 *
 * <p><b>Null policy.</b> No method of this package accepts {@code null} for any parameter, and no method returns
 * {@code null}; a {@code null} argument is rejected with a {@link java.lang.NullPointerException} that names the
 * parameter.
 *
 * <p><b>Thread safety.</b> Unless a type says otherwise, its instances are safe for use by multiple threads. Each lock
 * type states whether ownership is per thread or per instance.
 *
 * <p><b>Exceptions.</b> Methods that talk to ZooKeeper throw {@link java.lang.InterruptedException} when interrupted
 * (after deleting whatever they created) and {@link dev.zklock.recipes.locks.ZkLockException} when ZooKeeper refuses a
 * request; a timed acquire that runs out of time returns {@code false}.
 */
package dev.zklock.recipes.locks;
