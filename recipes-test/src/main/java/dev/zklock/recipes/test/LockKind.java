package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkLockBuilder;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.locks.ZkSemaphore;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;

/**
 * A kind of lock that the chaos workload drives, such as zklock's reentrant lock or Curator's mutex. The workload asks
 * each kind for {@link Contender}s and records what they hold in a {@link SafetyMonitor}, so a new recipe joins the
 * chaos suite and {@code zklock torture} with one factory: implement {@link #newContender}, and say how many paths one
 * lock object takes and which family of kinds it shares its paths with.
 *
 * <p>Kinds of one {@linkplain #family() family} agree on which nodes block which, so they may contend on the same
 * paths: zklock's exclusive, reentrant and multi-locks, its cohort locks and Curator's mutex ({@link #MUTEX}: every
 * earlier node blocks), and read and write locks, cohort ones among them ({@link #READ_WRITE}: a reader is blocked by
 * earlier writers only, so it would not see an exclusive lock's node).
 *
 * <p>Cohort locks ({@link ZkLockBuilder#localHandOff()}) are owned per thread, and the workload gives the threads of
 * one client one lock object per path: that is what lets them pass the lock among themselves with no ZooKeeper request.
 * Consecutive holders of one node then share its creation zxid and differ in their pass
 * ({@link dev.zklock.recipes.locks.FencingToken}), so their tokens still grow, as {@link SafetyMonitor} checks.
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
     * Returns zklock's {@link ZkExclusiveLock} in the mutex layout ({@link ZkExclusiveLock#mutexLayout}), which shares
     * its paths with the other mutex kinds: exclusive, owned per instance, so every thread gets its own object.
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
     * Returns zklock's {@link ZkReentrantLock} with local hand-off and its default bounds
     * ({@link ZkLockBuilder#localHandOff()}): the threads of one client pass it among themselves with no request.
     *
     * @return the kind
     */
    static LockKind zkCohort() {
        return CohortContender.REENTRANT;
    }

    /**
     * Returns zklock's {@link ZkReentrantLock} with local hand-off and a cached node
     * ({@link ZkLockBuilder#keepIdle(Duration)}, 30 ms): after the last local release the node stays for that long
     * while no other waiter is queued, so nodes are still there for up to {@link #keepIdle()} after a run stops.
     *
     * @return the kind
     */
    static LockKind zkCohortCached() {
        return CohortContender.CACHED;
    }

    /**
     * Returns the read lock of zklock's {@link ZkReadWriteLock} with local hand-off: the reader threads of one client
     * share one read node until a writer queues behind it.
     *
     * @return the kind
     */
    static LockKind zkCohortRead() {
        return CohortContender.READ;
    }

    /**
     * Returns the write lock of zklock's {@link ZkReadWriteLock} with local hand-off: the writer threads of one client
     * pass the write node among themselves.
     *
     * @return the kind
     */
    static LockKind zkCohortWrite() {
        return CohortContender.WRITE;
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
     * Returns zklock's {@link ZkExclusiveLock} in its default layout, the semaphore-mutex layout: it must exclude
     * Curator's semaphore mutex on the same path.
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
     * Returns the cohort kinds: zklock's locks with local hand-off, of both families, one of them cached.
     *
     * @return the cohort reentrant lock, its cached variant, and the cohort read and write locks
     */
    static List<LockKind> cohorts() {
        return List.of(zkCohort(), zkCohortCached(), zkCohortRead(), zkCohortWrite());
    }

    /**
     * Returns every built-in kind: the ones the chaos suite runs by default.
     *
     * @return the mutexes, the multi-lock, the read and write locks, the {@linkplain #cohorts() cohort kinds}, the
     *     semaphores and the semaphore mutexes
     */
    static List<LockKind> builtIn() {
        return List.of(
                zkReentrant(),
                zkExclusive(),
                curatorMutex(),
                zkMulti(),
                zkRead(),
                zkWrite(),
                zkCohort(),
                zkCohortCached(),
                zkCohortRead(),
                zkCohortWrite(),
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
     * Tells whether this kind runs beside zklock's as a reference (Curator's recipes): its holds are judged with every
     * other's (an overlap with one of its holds is an overlap), but the nodes it leaves behind are reported, not counted
     * as leaked. They are the reference recipe's own: Curator's {@code InterProcessSemaphoreV2} leaves its lock node
     * behind when its own {@code LockInternals.internalLockLoop} throws a {@code NullPointerException} ("ourPath is
     * null") under a fault, as a chaos run at seed 527623114481493565 met.
     *
     * @return {@code true} for Curator's kinds; {@code false} for zklock's (the default)
     */
    default boolean isReference() {
        return false;
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
     * Returns how long a lock object of this kind may keep a lock node after its last release while no other waiter is
     * queued (a cached cohort lock's {@link ZkLockBuilder#keepIdle(Duration)}): such a node is a live lock node, not a
     * leak, until that time has passed. The end of a chaos run gives nodes this long to go before it counts them as
     * left behind.
     *
     * @return zero for locks that delete their node at the release (the default)
     */
    default Duration keepIdle() {
        return Duration.ZERO;
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
