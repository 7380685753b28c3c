package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The end of a chaos run judges the nodes zklock's kinds leave behind and reports those of Curator's kinds, known by
 * their session, apart: Curator's {@code InterProcessSemaphoreV2} leaves its node after a NullPointerException of its
 * own, and that is no failure of zklock's. Against a real server, one node of each left held.
 */
@Timeout(60)
final class ChaosNodesLeftTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void checkNoNodesLeft_nodesOfAReferenceSessionBesideOthers_countsOnlyTheOthersAndReturnsTheReferences()
            throws Exception {
        CuratorFramework ours = zk.newClient();
        CuratorFramework curators = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(ours, zk.path("mutex"));
        InterProcessMutex mutex = new InterProcessMutex(curators, zk.path("mutex"));
        lock.acquire();
        LockActor curatorsThread = LockActor.start("curators");
        CompletableFuture<Void> queued = curatorsThread.run(() -> {
            mutex.acquire(); // queues behind ours until the end: its node is left meanwhile
            mutex.release();
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> lock.participantNodes().size() == 2);
        SafetyMonitor monitor = SafetyMonitor.create();

        Map<String, List<String>> references = Chaos.checkNoNodesLeft(
                monitor,
                zk.newClient(),
                List.of(zk.path("mutex"), zk.path("never")),
                Duration.ofMillis(200),
                Set.of(Sessions.current(curators)));

        assertThat(references).containsOnlyKeys(zk.path("mutex"));
        assertThat(references.get(zk.path("mutex")))
                .singleElement()
                .asString()
                .contains(Long.toHexString(Sessions.current(curators)));
        assertThat(monitor.report().leakedNodes()).isEqualTo(1);
        assertThat(monitor.report().firstViolations())
                .singleElement()
                .asString()
                .contains(zk.path("mutex"), Long.toHexString(Sessions.current(ours)));
        lock.release();
        queued.get(10, TimeUnit.SECONDS);
        curatorsThread.close();
        assertThat(lock.participantNodes()).isEmpty();
    }
}
