package dev.zklock.spring;

import dev.zklock.recipes.locks.LockMetrics;
import dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * zklock's Micrometer meters ({@link MicrometerLockMetrics}: {@code zklock.lock.wait}, {@code zklock.lock.hold},
 * {@code zklock.lock.acquisitions}, {@code zklock.lock.timeouts}, {@code zklock.lock.losses}) for every lock of one
 * client, as a {@link MeterBinder}: each registry it is bound to gets the meters (tagged with the lock path, at most 100
 * distinct tags; see {@link MicrometerLockMetrics}) until {@link #close()}. A meter appears at the first event that
 * records it. Spring Boot binds a bean of this type to the application's registries.
 *
 * <p>Safe for use by multiple threads; costs no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class ZkLockMicrometerBinding implements MeterBinder, AutoCloseable {
    private final CuratorFramework client;
    private final Map<MeterRegistry, MicrometerLockMetrics> bound = new IdentityHashMap<>(); // guarded by this
    private boolean closed; // guarded by this

    /**
     * Makes a binder of the meters of every lock of {@code client}; it reports nowhere until bound. No ZooKeeper call.
     *
     * @param client the client whose locks to measure
     * @throws NullPointerException if {@code client} is null
     */
    public ZkLockMicrometerBinding(CuratorFramework client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Reports the meters of the client's locks to {@code registry} from now on; binding a registry a second time, or
     * after {@link #close()}, does nothing.
     *
     * @param registry where to report
     * @throws NullPointerException if {@code registry} is null
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (!closed && !bound.containsKey(registry)) {
            MicrometerLockMetrics metrics = new MicrometerLockMetrics(registry);
            LockMetrics.addListener(client, metrics);
            bound.put(registry, metrics);
        }
    }

    /** Stops reporting to every registry. */
    @Override
    public synchronized void close() {
        closed = true;
        bound.values().forEach(metrics -> LockMetrics.removeListener(client, metrics));
        bound.clear();
    }
}
