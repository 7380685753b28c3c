package dev.zklock.recipes.test;

import java.util.List;
import java.util.function.BiFunction;
import org.apache.curator.framework.CuratorFramework;

/**
 * A {@link LockKind} whose lock objects take one path each.
 *
 * @param name the kind's name in reports
 * @param isOwnedPerThread whether the threads of one client may share a lock object
 * @param factory makes a contender from a client and a lock path
 */
record SinglePathKind(String name, boolean isOwnedPerThread, BiFunction<CuratorFramework, String, Contender> factory)
        implements LockKind {
    @Override
    public Contender newContender(CuratorFramework client, List<String> lockPaths) {
        if (lockPaths.size() != 1) {
            throw new IllegalArgumentException(name + " takes exactly one lock path, not " + lockPaths);
        }
        return factory.apply(client, lockPaths.get(0));
    }

    @Override
    public String toString() {
        return name;
    }
}
