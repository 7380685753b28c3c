package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The semaphore examples of README.md and of {@link ZkSemaphore}'s javadoc, as tests: when one changes, both change. */
@Timeout(60)
final class ZkSemaphoreExampleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private final AtomicInteger downloads = new AtomicInteger();

    @Test
    void javadocExample_aLeaseInTryWithResources() throws Exception {
        CuratorFramework client = zk.newClient();

        // ZkSemaphore's javadoc, and README: Semaphores
        ZkSemaphore downloads = new ZkSemaphore(client, "/semaphores/downloads", 3);
        Lease lease = downloads.acquire(5, TimeUnit.SECONDS); // null if no lease in time
        if (lease != null) {
            try (lease) {
                download();
            }
        }

        assertThat(this.downloads).hasValue(1);
        assertThat(downloads.getParticipantNodes()).isEmpty();
    }

    @Test
    void readmeExample_theSemaphoreMutexLayoutBesideCurators() throws Exception {
        CuratorFramework client = zk.newClient();
        InterProcessSemaphoreMutex curators = new InterProcessSemaphoreMutex(zk.newClient(), "/locks/nightly-job");

        // README: From Curator
        ZkExclusiveLock lock = ZkExclusiveLock.semaphoreMutex(client, "/locks/nightly-job");
        if (lock.acquire(5, TimeUnit.SECONDS)) {
            try {
                assertThat(curators.acquire(0, TimeUnit.SECONDS)).isFalse(); // Curator's waits its turn
            } finally {
                lock.release();
            }
        }

        assertThat(curators.acquire(0, TimeUnit.SECONDS)).isTrue();
        curators.release();
    }

    private void download() {
        downloads.incrementAndGet();
    }
}
