package dev.zklock.spring;

import dev.zklock.recipes.locks.LockMetrics;
import dev.zklock.recipes.locks.micrometer.MicrometerLockObservations;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * zklock's observations ({@link MicrometerLockObservations}: {@code zklock.lock.acquire} and {@code zklock.lock.hold},
 * children of the observation current on the acquiring thread) reported to an {@link ObservationRegistry} for every
 * lock of one client, until {@link #close()}. Safe for use by multiple threads; costs no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class ZkLockObservationBinding implements AutoCloseable {
    private final CuratorFramework client;
    private final MicrometerLockObservations observations;

    /**
     * Reports the acquisitions and holds of every lock of {@code client} to {@code observationRegistry}.
     *
     * @param client the client whose locks to observe
     * @param observationRegistry where to report
     * @throws NullPointerException if an argument is null
     */
    public ZkLockObservationBinding(CuratorFramework client, ObservationRegistry observationRegistry) {
        this.client = Objects.requireNonNull(client, "client");
        this.observations =
                new MicrometerLockObservations(Objects.requireNonNull(observationRegistry, "observationRegistry"));
        LockMetrics.addTracer(client, observations);
    }

    /** Stops reporting; observations begun already still end. */
    @Override
    public void close() {
        LockMetrics.removeTracer(client, observations);
    }
}
