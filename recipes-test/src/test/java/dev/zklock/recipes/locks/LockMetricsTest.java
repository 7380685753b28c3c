package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics;
import dev.zklock.recipes.locks.micrometer.MicrometerLockObservations;
import dev.zklock.recipes.test.ZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
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

    /**
     * A hold taken before the listener was added is timed by nobody (no clock read while nobody listens), yet its
     * release is heard, with the time its node has stood: with and without local hand-off.
     */
    @Test
    void listener_addedWhileALockIsHeld_hearsItsRelease() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock plain = new ZkReentrantLock(client, zk.path("plain"));
        ZkReentrantLock cohort = ZkReentrantLock.builder(client, zk.path("cohort"))
                .localHandOff()
                .build();
        plain.acquire();
        cohort.acquire();
        long before = System.nanoTime();
        List<String> heard = new CopyOnWriteArrayList<>();
        LockMetrics.addListener(client, new LockMetricsListener() {
            @Override
            public void released(String lockPath, Duration held) {
                heard.add(lockPath
                        + (held.toNanos() >= System.nanoTime() - before ? " held since before" : " too short"));
            }
        });

        plain.release();
        cohort.release();

        assertThat(heard)
                .containsExactly(zk.path("plain") + " held since before", zk.path("cohort") + " held since before");
    }

    /**
     * Observations through Micrometer's Observation API: one per acquisition (granted, then timed out) and one per hold,
     * each a child of the request's observation current on the acquiring thread, with its keys.
     */
    @Test
    void observations_eachAcquisitionAndHold_areChildrenOfTheRequestsObservation() throws Exception {
        CuratorFramework client = zk.newClient();
        TestObservationRegistry registry = TestObservationRegistry.create();
        LockMetrics.addTracer(client, new MicrometerLockObservations(registry));
        String path = zk.path("lock");
        ZkReentrantLock lock = new ZkReentrantLock(client, path);
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), path); // another client: not traced
        Observation request = Observation.start("request", registry);
        long token;
        try (Observation.Scope scope = request.openScope()) {
            lock.acquire();
            token = lock.fencingToken();
            lock.release();
            other.acquire();
            assertThat(lock.acquire(Duration.ZERO)).isFalse();
            other.release();
        }
        request.stop();

        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo("zklock.lock.acquire", 2)
                .hasNumberOfObservationsWithNameEqualTo("zklock.lock.hold", 1)
                .forAllObservationsWithNameEqualTo("zklock.lock.acquire", acquisition -> acquisition
                        .hasParentObservationEqualTo(request)
                        .hasContextualNameEqualTo("zklock acquire")
                        .hasLowCardinalityKeyValue("zklock.lock.kind", "exclusive")
                        .hasLowCardinalityKeyValue("zklock.lock.local.pass", "false")
                        .hasHighCardinalityKeyValue("zklock.lock.path", path))
                .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts.stream()
                                .filter(c -> c.getName().equals("zklock.lock.acquire"))
                                .map(c -> c.getLowCardinalityKeyValue("zklock.lock.outcome")
                                        .getValue()))
                        .containsExactly("granted", "timed_out"))
                .hasObservationWithNameEqualTo("zklock.lock.hold")
                .that()
                .hasBeenStopped()
                .hasParentObservationEqualTo(request)
                .hasLowCardinalityKeyValue("zklock.lock.state", "HELD")
                .hasHighCardinalityKeyValue("zklock.lock.fencing.token", String.valueOf(token));
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
