package dev.zklock.recipes.locks;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Function;

/**
 * Lock metrics for Micrometer, at its old address: use {@link dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics}
 * instead, which this class delegates to (same meters, same tags). Thread-safe; costs no ZooKeeper call.
 *
 * @deprecated moved to {@code dev.zklock.recipes.locks.micrometer}, so that nothing in this package refers to
 *     Micrometer; this class goes in the next minor release
 * @since 0.1.0
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class MicrometerLockMetrics implements LockMetricsListener {
    private final LockMetricsListener binding;

    /**
     * Reports to {@code registry} with the lock path as the {@code lock} tag (at most 100 distinct values).
     *
     * @param registry where to report
     * @throws NullPointerException if {@code registry} is null
     */
    public MicrometerLockMetrics(MeterRegistry registry) {
        this.binding = new dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics(registry);
    }

    /**
     * Reports to {@code registry} with {@code tagOf(lockPath)} as the {@code lock} tag (at most 100 distinct values).
     *
     * @param registry where to report
     * @param tagOf makes the {@code lock} tag of a lock path
     * @throws NullPointerException if an argument is null
     */
    public MicrometerLockMetrics(MeterRegistry registry, Function<String, String> tagOf) {
        this.binding = new dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics(registry, tagOf);
    }

    @Override
    public void acquired(String lockPath, Duration waited) {
        binding.acquired(lockPath, waited);
    }

    @Override
    public void timedOut(String lockPath, Duration waited) {
        binding.timedOut(lockPath, waited);
    }

    @Override
    public void released(String lockPath, Duration held) {
        binding.released(lockPath, held);
    }

    @Override
    public void lost(String lockPath) {
        binding.lost(lockPath);
    }
}
