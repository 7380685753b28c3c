package dev.zklock.spring;

import dev.zklock.recipes.locks.LockMetrics;
import dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * zklock's Micrometer meters ({@link MicrometerLockMetrics}: {@code zklock.lock.wait}, {@code zklock.lock.hold},
 * {@code zklock.lock.acquisitions}, {@code zklock.lock.timeouts}, {@code zklock.lock.losses}) bound to a
 * {@link MeterRegistry} for every lock of one client, until {@link #close()}. Safe for use by multiple threads; costs
 * no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class ZkLockMicrometerBinding implements AutoCloseable {
    private final CuratorFramework client;
    private final MicrometerLockMetrics metrics;

    /**
     * Binds the meters of every lock of {@code client} to {@code meterRegistry}, tagged with the lock path (at most 100
     * distinct tags; see {@link MicrometerLockMetrics}).
     *
     * @param client the client whose locks to measure
     * @param meterRegistry where to report
     * @throws NullPointerException if an argument is null
     */
    public ZkLockMicrometerBinding(CuratorFramework client, MeterRegistry meterRegistry) {
        this.client = Objects.requireNonNull(client, "client");
        this.metrics = new MicrometerLockMetrics(Objects.requireNonNull(meterRegistry, "meterRegistry"));
        LockMetrics.addListener(client, metrics);
    }

    /** Stops reporting. */
    @Override
    public void close() {
        LockMetrics.removeListener(client, metrics);
    }
}
