package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics;
import dev.zklock.recipes.test.ZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
final class LockMetricsTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void listener_hearsAcquisitionsTimeoutsReleasesAndLosses() throws Exception {
        CuratorFramework client = zk.newClient();
        List<String> heard = new CopyOnWriteArrayList<>();
        LockMetrics.addListener(client, new LockMetricsListener() {
            @Override
            public void acquired(String lockPath, Duration waited) {
                heard.add("acquired " + lockPath);
            }

            @Override
            public void timedOut(String lockPath, Duration waited) {
                heard.add("timedOut " + lockPath);
            }

            @Override
            public void released(String lockPath, Duration held) {
                heard.add("released " + lockPath);
            }

            @Override
            public void lost(String lockPath) {
                heard.add("lost " + lockPath);
            }
        });
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("held"));
        ZkReentrantLock blocked = new ZkReentrantLock(client, zk.path("held"));
        holder.acquire();

        lock.acquire();
        lock.acquire(); // a re-entry is not an acquisition
        lock.release();
        lock.release();
        blocked.acquire(Duration.ZERO);
        lock.acquire();
        zk.expireSession(client);
        await().until(() -> heard.contains("lost " + zk.path("lock")));
        lock.release();
        holder.release();

        assertThat(heard)
                .containsExactly(
                        "acquired " + zk.path("lock"),
                        "released " + zk.path("lock"),
                        "timedOut " + zk.path("held"),
                        "acquired " + zk.path("lock"),
                        "lost " + zk.path("lock"),
                        "released " + zk.path("lock"));
    }

    @Test
    void micrometer_recordsTimersAndCountersWithBoundedTags() throws Exception {
        CuratorFramework client = zk.newClient();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LockMetrics.addListener(client, new MicrometerLockMetrics(registry, path -> path.replaceAll("/[^/]+$", "")));
        ZkLockRegistry locks = new ZkLockRegistry(client, zk.path("orders"));

        for (int i = 0; i < 5; i++) {
            try (LockHold hold = locks.obtain("order-" + i).hold()) {
                assertThat(hold.fencingToken()).isPositive();
            }
        }

        String tag = zk.path("orders");
        assertThat(registry.get("zklock.lock.acquisitions")
                        .tag("lock", tag)
                        .counter()
                        .count())
                .isEqualTo(5);
        assertThat(registry.get("zklock.lock.wait")
                        .tags("lock", tag, "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(5);
        assertThat(registry.get("zklock.lock.hold").tag("lock", tag).timer().count())
                .isEqualTo(5);
        assertThat(registry.find("zklock.lock.acquisitions").counters()).hasSize(1);
    }

    @Test
    void micrometer_afterAHundredDistinctTags_reportsEveryNewOneAsOther() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerLockMetrics metrics = new MicrometerLockMetrics(registry);

        for (int i = 0; i < 105; i++) {
            metrics.acquired("/locks/" + i, java.time.Duration.ofMillis(1));
        }

        assertThat(registry.find("zklock.lock.acquisitions").counters()).hasSize(101);
        assertThat(registry.get("zklock.lock.acquisitions")
                        .tag("lock", "_other")
                        .counter()
                        .count())
                .isEqualTo(5);
        assertThat(registry.get("zklock.lock.acquisitions")
                        .tag("lock", "/locks/99")
                        .counter()
                        .count())
                .isEqualTo(1);
    }
}
