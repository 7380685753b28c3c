package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;

/**
 * A kind of lock that the chaos workload drives, such as zklock's reentrant lock or Curator's mutex. The workload asks
 * each kind for {@link Contender}s and records what they hold in a {@link SafetyMonitor}, so a new recipe (a read or
 * write lock, a multi-lock over several paths) joins the chaos suite and {@code zklock torture} with one factory:
 * implement {@link #newContender} and say how many paths one lock object takes.
 *
 * <p>Implementations must be safe for use by multiple threads; the built-in kinds are stateless.
 */
public interface LockKind {
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
     * Returns Curator's {@code InterProcessMutex}, which shares its node layout with zklock's exclusive locks: on the
     * same path, it and they must exclude each other.
     *
     * @return the kind
     */
    static LockKind curatorMutex() {
        return CuratorMutexContender.KIND;
    }

    /**
     * Returns every built-in kind: the ones the chaos suite runs by default.
     *
     * @return zklock's reentrant and exclusive locks and Curator's mutex
     */
    static List<LockKind> builtIn() {
        return List.of(zkReentrant(), zkExclusive(), curatorMutex());
    }

    /**
     * Returns a short name for reports.
     *
     * @return the name, such as {@code zk-reentrant}
     */
    String name();

    /**
     * Returns how many lock paths one lock object of this kind takes: 1 for a plain lock, more for a multi-lock.
     *
     * @return at least 1
     */
    default int pathsPerLock() {
        return 1;
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
     * @param lockPaths the paths it takes, {@link #pathsPerLock()} of them
     * @return a contender for the workload
     */
    Contender newContender(CuratorFramework client, List<String> lockPaths);
}
