package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.ClientContext;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * Metrics listeners and tracers on every lock used through one client. All methods are safe for use by multiple threads and cost
 * no ZooKeeper call.
 *
 * <pre>{@code
 * // dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics, for Micrometer (an optional dependency)
 * LockMetrics.addListener(client, new MicrometerLockMetrics(meterRegistry));
 * // dev.zklock.recipes.locks.micrometer.MicrometerLockObservations, for Micrometer's Observation API
 * LockMetrics.addTracer(client, new MicrometerLockObservations(observationRegistry));
 * }</pre>
 *
 * @since 0.1.0
 */
public final class LockMetrics {
    private LockMetrics() {}

    /**
     * Adds a listener that hears every acquisition, timeout, release and loss of every lock used through
     * {@code client}.
     *
     * @param client the client whose locks to measure
     * @param listener the listener
     * @throws NullPointerException if an argument is null
     */
    public static void addListener(CuratorFramework client, LockMetricsListener listener) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).metrics().add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener added with {@link #addListener}; does nothing if it is not there.
     *
     * @param client the client it was added for
     * @param listener the listener to remove
     * @throws NullPointerException if an argument is null
     */
    public static void removeListener(CuratorFramework client, LockMetricsListener listener) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).metrics().remove(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Adds a tracer that hears of every acquisition and hold of every single-path lock used through {@code client}, as
     * spans ({@link LockTracer}).
     *
     * @param client the client whose locks to trace
     * @param tracer the tracer
     * @throws NullPointerException if an argument is null
     */
    public static void addTracer(CuratorFramework client, LockTracer tracer) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).metrics().addTracer(Objects.requireNonNull(tracer, "tracer"));
    }

    /**
     * Removes a tracer added with {@link #addTracer}; does nothing if it is not there. Spans begun already still end.
     *
     * @param client the client it was added for
     * @param tracer the tracer to remove
     * @throws NullPointerException if an argument is null
     */
    public static void removeTracer(CuratorFramework client, LockTracer tracer) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).metrics().removeTracer(Objects.requireNonNull(tracer, "tracer"));
    }
}
