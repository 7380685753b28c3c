package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The examples of README.md and of the lock classes' javadoc, as tests: when one changes, both change. */
@Timeout(60)
final class ZkReentrantLockExampleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** A store that takes writes only with a fencing token at least as new as the newest it has seen. */
    static final class Orders {
        private final List<String> written = new ArrayList<>();
        private long newestToken;

        synchronized void write(String order, long token) {
            if (token < newestToken) {
                throw new IllegalStateException("stale fencing token " + token + " < " + newestToken);
            }
            newestToken = token;
            written.add(order);
        }

        synchronized List<String> written() {
            return List.copyOf(written);
        }
    }

    @Test
    void readmeExample_acquireWriteRelease() throws Exception {
        CuratorFramework client = zk.newClient();
        Orders orders = new Orders();
        String order = "order-42";

        // README: the canonical example
        ZkReentrantLock lock = new ZkReentrantLock(client, "/locks/orders");
        if (lock.acquire(Duration.ofSeconds(5))) {
            try {
                orders.write(order, lock.fencingToken());
            } finally {
                lock.release();
            }
        }

        assertThat(orders.written()).containsExactly("order-42");
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void javadocExample_exclusiveLockReleasedByAnotherThread() throws Exception {
        CuratorFramework client = zk.newClient();
        List<String> ran = new ArrayList<>();
        java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            // ZkExclusiveLock javadoc: usage
            ZkExclusiveLock lock = new ZkExclusiveLock(client, "/locks/nightly-job");
            if (lock.acquire(0, TimeUnit.SECONDS)) { // one try, never waits
                executor.submit(() -> {
                            try {
                                ran.add("job");
                            } finally {
                                lock.release(); // from another thread: allowed
                            }
                        })
                        .get();
            }

            assertThat(ran).containsExactly("job");
            assertThat(lock.isAcquiredInThisProcess()).isFalse();
        } finally {
            executor.shutdown();
        }
    }
}
