package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.locks.ZkSemaphore;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;

/**
 * A kind of lock that the chaos workload drives, such as zklock's reentrant lock or Curator's mutex. The workload asks
 * each kind for {@link Contender}s and records what they hold in a {@link SafetyMonitor}, so a new recipe joins the
 * chaos suite and {@code zklock torture} with one factory: implement {@link #newContender}, and say how many paths one
 * lock object takes and which family of kinds it shares its paths with.
 *
 * <p>Kinds of one {@linkplain #family() family} agree on which nodes block which, so they may contend on the same
 * paths: zklock's exclusive, reentrant and multi-locks and Curator's mutex ({@link #MUTEX}: every earlier node blocks),
 * and read and write locks ({@link #READ_WRITE}: a reader is blocked by earlier writers only, so it would not see an
 * exclusive lock's node).
 *
 * <p>Implementations must be safe for use by multiple threads; the built-in kinds are stateless.
 */
public interface LockKind {
    /** The family of exclusive locks, whose every earlier node blocks: {@code lock-} nodes. */
    String MUTEX = "mutex";

    /** The family of read and write locks: {@code __READ__} and {@code __WRIT__} nodes. */
    String READ_WRITE = "read-write";

    /**
     * The family of semaphores of {@value SemaphoreContender#LEASES} leases in Curator's {@code InterProcessSemaphoreV2}
     * layout: lease nodes under {@code <path>/leases} behind a mutex at {@code <path>/locks}.
     */
    String SEMAPHORE = "semaphore";

    /** The family of semaphores of one lease in that layout: Curator's {@code InterProcessSemaphoreMutex}'s. */
    String SEMAPHORE_MUTEX = "semaphore-mutex";

    /**
     * Returns zklock's {@link ZkReentrantLock}: exclusive, owned per thread, so the threads of one client share one
     * lock object per path.
     *
     * @return the kind
     */
    static LockKind zkReentrant() {
        return ZkContender.REENTRANT;
    }

    /**
     * Returns zklock's {@link ZkExclusiveLock}: exclusive, owned per instance, so every thread gets its own object.
     *
     * @return the kind
     */
    static LockKind zkExclusive() {
        return ZkContender.EXCLUSIVE;
    }

    /**
     * Returns zklock's {@link ZkMultiLock} over two paths of the {@link #MUTEX} family, taken at once: it must exclude
     * every exclusive lock on either path.
     *
     * @return the kind
     */
    static LockKind zkMulti() {
        return ZkContender.MULTI;
    }

    /**
     * Returns the read lock of zklock's {@link ZkReadWriteLock}: readers share a path, writers exclude them.
     *
     * @return the kind
     */
    static LockKind zkRead() {
        return ZkContender.READ;
    }

    /**
     * Returns the write lock of zklock's {@link ZkReadWriteLock}.
     *
     * @return the kind
     */
    static LockKind zkWrite() {
        return ZkContender.WRITE;
    }

    /**
     * Returns Curator's {@code InterProcessMutex}, which shares its node layout with zklock's exclusive locks: on the
     * same path, it and they must exclude each other.
     *
     * @return the kind
     */
    static LockKind curatorMutex() {
        return CuratorMutexContender.KIND;
    }

    /**
     * Returns zklock's {@link ZkSemaphore} of {@value SemaphoreContender#LEASES} leases: never more lease holders at once,
     * beside Curator's semaphore on the same paths.
     *
     * @return the kind
     */
    static LockKind zkSemaphore() {
        return SemaphoreContender.ZK_SEMAPHORE;
    }

    /**
     * Returns Curator's {@code InterProcessSemaphoreV2} of {@value SemaphoreContender#LEASES} leases, which shares its
     * layout and its lease count with {@link #zkSemaphore()}.
     *
     * @return the kind
     */
    static LockKind curatorSemaphore() {
        return SemaphoreContender.CURATOR_SEMAPHORE;
    }

    /**
     * Returns zklock's {@link ZkExclusiveLock} in the semaphore-mutex layout ({@link ZkExclusiveLock#semaphoreMutex}): it
     * must exclude Curator's semaphore mutex on the same path.
     *
     * @return the kind
     */
    static LockKind zkSemaphoreMutex() {
        return SemaphoreContender.ZK_SEMAPHORE_MUTEX;
    }

    /**
     * Returns Curator's semaphore mutex: the {@code InterProcessSemaphoreV2} of one lease that its
     * {@code InterProcessSemaphoreMutex} is made of.
     *
     * @return the kind
     */
    static LockKind curatorSemaphoreMutex() {
        return SemaphoreContender.CURATOR_SEMAPHORE_MUTEX;
    }

    /**
     * Returns the kinds of the {@link #MUTEX} family that take one path: zklock's reentrant and exclusive locks and
     * Curator's mutex.
     *
     * @return the kinds
     */
    static List<LockKind> mutexes() {
        return List.of(zkReentrant(), zkExclusive(), curatorMutex());
    }

    /**
     * Returns every built-in kind: the ones the chaos suite runs by default.
     *
     * @return the mutexes, the multi-lock, the read and write locks, the semaphores and the semaphore mutexes
     */
    static List<LockKind> builtIn() {
        return List.of(
                zkReentrant(),
                zkExclusive(),
                curatorMutex(),
                zkMulti(),
                zkRead(),
                zkWrite(),
                zkSemaphore(),
                curatorSemaphore(),
                zkSemaphoreMutex(),
                curatorSemaphoreMutex());
    }

    /**
     * Returns a short name for reports.
     *
     * @return the name, such as {@code zk-reentrant}
     */
    String name();

    /**
     * Returns the family of kinds this kind may share lock paths with.
     *
     * @return {@link #MUTEX}, {@link #READ_WRITE}, or a family of the implementation's own
     */
    String family();

    /**
     * Returns how many lock paths one lock object of this kind takes: 1 for a plain lock, more for a multi-lock.
     *
     * @return at least 1
     */
    default int pathsPerLock() {
        return 1;
    }

    /**
     * Returns the paths under {@code lockPath} whose children are the lock nodes, checked for nodes left behind at the
     * end of a run: the lock path itself, or a semaphore's {@code locks} and {@code leases}.
     *
     * @param lockPath a lock path of this kind
     * @return the paths that hold its nodes
     */
    default List<String> nodeParents(String lockPath) {
        return List.of(lockPath);
    }

    /**
     * Tells whether ownership is per thread, so that the threads of one client may share one lock object.
     *
     * @return {@code true} for locks like {@code InterProcessMutex}; {@code false} for per-instance locks
     */
    default boolean isOwnedPerThread() {
        return false;
    }

    /**
     * Makes a lock object of this kind.
     *
     * @param client the started client the lock uses
     * @param lockPaths the paths it takes, {@link #pathsPerLock()} of them, all of this kind's family
     * @return a contender for the workload
     */
    Contender newContender(CuratorFramework client, List<String> lockPaths);
}
