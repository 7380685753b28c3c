package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.data.Stat;

/**
 * Curator's {@link InterProcessMutex} as the workload drives it. Curator gives no fencing token, so the claim reads the
 * stat of our node after the acquire: its creation zxid makes the token ({@link FencingToken#of}, pass 0, so that
 * it compares with zklock's tokens on the same path), its ephemeral owner is the session. One request per acquisition
 * more than Curator's own.
 */
final class CuratorMutexContender implements Contender {
    static final LockKind KIND = BuiltInKind.curators(
            "curator-mutex", LockKind.MUTEX, true, (client, paths) -> new CuratorMutexContender(client, paths.get(0)));

    private final CuratorFramework client;
    private final String path;
    private final OwnedMutex mutex;

    private CuratorMutexContender(CuratorFramework client, String path) {
        this.client = client;
        this.path = path;
        this.mutex = new OwnedMutex(client, path);
    }

    @Override
    public List<String> lockPaths() {
        return List.of(path);
    }

    @Override
    public Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception {
        if (!mutex.acquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        Stat stat = Sessions.statQuietly(client, mutex.ourNode());
        if (stat == null) {
            return Optional.of(List.of());
        }
        return Optional.of(List.of(new SafetyMonitor.Claim(
                path, SafetyMonitor.Mode.EXCLUSIVE, FencingToken.of(stat.getCzxid(), 0), stat.getEphemeralOwner())));
    }

    @Override
    public void release() throws Exception {
        mutex.release();
    }

    @Override
    public String toString() {
        return "InterProcessMutex[" + path + "]";
    }

    /** Curator's mutex, opened up only to tell which node the current thread holds. */
    private static final class OwnedMutex extends InterProcessMutex {
        OwnedMutex(CuratorFramework client, String path) {
            super(client, path);
        }

        String ourNode() {
            return getLockPath();
        }
    }
}
