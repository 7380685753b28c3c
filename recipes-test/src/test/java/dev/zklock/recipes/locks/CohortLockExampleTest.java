package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The cohort examples of README.md, as tests: when one changes, both change. */
@Timeout(60)
final class CohortLockExampleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void readmeExample_threadsOfAServicePassTheLockLocally() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLockExampleTest.Orders orders = new ZkReentrantLockExampleTest.Orders();
        String base = zk.path("locks");

        // README: cohort locks
        ZkReentrantLock lock = ZkReentrantLock.builder(client, base + "/orders")
                .localHandOff() // at most 64 passes and 5 ms while another process waits
                .keepIdle(Duration.ofMillis(200)) // keep the node 200 ms after the last release
                .build();
        ZkLockRegistry accounts = ZkLockRegistry.builder(client, base + "/accounts")
                .localHandOff()
                .build();
        // README: end

        List<LockActor> threads = new ArrayList<>();
        List<CompletableFuture<Void>> work = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LockActor thread = LockActor.start("service-thread-" + i);
            threads.add(thread);
            String order = "order-" + i;
            work.add(thread.run(() -> {
                if (lock.acquire(5, TimeUnit.SECONDS)) {
                    try {
                        orders.write(order, lock.fencingToken());
                    } finally {
                        lock.release();
                    }
                }
            }));
        }
        for (CompletableFuture<Void> done : work) {
            done.get(30, TimeUnit.SECONDS);
        }
        for (LockActor thread : threads) {
            thread.close();
        }
        ZkReentrantLock account = accounts.obtain("account-7");
        account.acquire();
        account.release();

        assertThat(orders.written()).hasSize(4);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> lock.participantNodes()
                .isEmpty());
    }
}
