package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A process that did not run for half its session while it held a lock: its holds read IN_DOUBT from the first read
 * after the pause, before ZooKeeper's client or the tracker has run, and a check of the session's nodes makes them HELD
 * again when the session outlived the pause. The pause is made for real on the client's timer thread, whose ticks
 * vouch that the process runs: a task that blocks it is, for the holds, the same as a stopped JVM. (The partition rig
 * stops whole client JVMs with SIGSTOP: PARTITIONS.md, "HELD after expiry".)
 */
@Timeout(60)
final class PauseWatchTest {
    /** A 100 ms tick caps the session at 2 s, so half a session passes in a second. */
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.serverWithTick(Duration.ofMillis(100));

    @Test
    void holdOfAProcessThatDidNotRunForHalfItsSession_readsInDoubtAtOnceThenHeldAfterTheCheck() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        List<LockState> told = new CopyOnWriteArrayList<>();
        lock.addStateListener(event -> told.add(event.state()));
        lock.acquire();
        CompletableFuture<Void> resume = new CompletableFuture<>();
        ClientContext.of(client).timer().schedule(resume::join, 0); // the timer's thread does not run until resumed

        await().atMost(Duration.ofSeconds(10))
                .pollInSameThread() // the hold is this thread's
                .until(() -> lock.holdState().orElseThrow() == LockState.IN_DOUBT);
        assertThat(told).isEmpty(); // no thread has told the tracker: the read itself says so

        resume.complete(null);

        await().until(() -> told.equals(List.of(LockState.IN_DOUBT, LockState.HELD)));
        assertThat(lock.holdState()).hasValue(LockState.HELD);
        lock.release();
    }
}
