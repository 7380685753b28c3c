package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.curator.framework.CuratorFramework;

/**
 * A {@link LockKind} made of its properties and a factory.
 *
 * @param name the kind's name in reports
 * @param family the family of kinds that may share a lock path
 * @param pathsPerLock how many lock paths one lock object takes
 * @param isOwnedPerThread whether the threads of one client may share a lock object
 * @param keepIdle how long a lock object may keep its node after its last release (zero: it deletes it at once)
 * @param isReference whether the kind is Curator's, run beside zklock's as a reference ({@link LockKind#isReference()})
 * @param factory makes a contender from a client and its lock paths
 */
record BuiltInKind(
        String name,
        String family,
        int pathsPerLock,
        boolean isOwnedPerThread,
        Duration keepIdle,
        boolean isReference,
        BiFunction<CuratorFramework, List<String>, Contender> factory)
        implements LockKind {
    /** A kind of zklock's whose lock objects delete their node at the release. */
    BuiltInKind(
            String name,
            String family,
            int pathsPerLock,
            boolean isOwnedPerThread,
            BiFunction<CuratorFramework, List<String>, Contender> factory) {
        this(name, family, pathsPerLock, isOwnedPerThread, Duration.ZERO, false, factory);
    }

    /** A kind of zklock's whose lock objects keep their node for {@code keepIdle} after the last release. */
    BuiltInKind(
            String name,
            String family,
            int pathsPerLock,
            boolean isOwnedPerThread,
            Duration keepIdle,
            BiFunction<CuratorFramework, List<String>, Contender> factory) {
        this(name, family, pathsPerLock, isOwnedPerThread, keepIdle, false, factory);
    }

    /** One of Curator's recipes, run beside zklock's kinds as a reference; it deletes its node at the release. */
    static BuiltInKind curators(
            String name,
            String family,
            boolean isOwnedPerThread,
            BiFunction<CuratorFramework, List<String>, Contender> factory) {
        return new BuiltInKind(name, family, 1, isOwnedPerThread, Duration.ZERO, true, factory);
    }

    @Override
    public Contender newContender(CuratorFramework client, List<String> lockPaths) {
        if (lockPaths.size() != pathsPerLock) {
            throw new IllegalArgumentException(
                    name + " takes " + pathsPerLock + " lock path(s), not " + lockPaths.size() + ": " + lockPaths);
        }
        return factory.apply(client, lockPaths);
    }

    @Override
    public List<String> nodeParents(String lockPath) {
        if (family.equals(LockKind.SEMAPHORE) || family.equals(LockKind.SEMAPHORE_MUTEX)) {
            return List.of(lockPath + "/locks", lockPath + "/leases");
        }
        return List.of(lockPath);
    }

    @Override
    public String toString() {
        return name;
    }
}
