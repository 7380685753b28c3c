package dev.zklock.recipes.locks.micrometer;

import dev.zklock.recipes.locks.LockMetrics;
import dev.zklock.recipes.locks.LockMetricsListener;
import dev.zklock.recipes.locks.ZkLockRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Lock metrics for Micrometer: the one zklock class that needs {@code micrometer-core} on the class path (an optional
 * dependency; nothing else loads it). Register it with {@link LockMetrics#addListener}. It lives in a package of its own
 * so that nothing in {@code dev.zklock.recipes.locks} refers to Micrometer.
 *
 * <ul>
 *   <li>{@code zklock.lock.wait} (timer, tags {@code lock} and {@code outcome} = acquired or timeout): time to acquire;
 *   <li>{@code zklock.lock.hold} (timer, tag {@code lock}): time held;
 *   <li>{@code zklock.lock.acquisitions}, {@code zklock.lock.timeouts}, {@code zklock.lock.losses} (counters, tag
 *       {@code lock}).
 * </ul>
 *
 * <p>Tags stay bounded: the {@code lock} tag is what the given function makes of the lock path (by default the path),
 * and after 100 distinct values every new one is reported as {@code "_other"} ({@code LockMetricsTest}), so
 * per-entity locks (a {@link ZkLockRegistry}'s) cannot flood the registry. Thread-safe; costs no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class MicrometerLockMetrics implements LockMetricsListener {
    private static final int MAX_TAGS = 100;
    private static final String OTHER = "_other";

    private final MeterRegistry registry;
    private final Function<String, String> tagOf;
    private final Set<String> tags = ConcurrentHashMap.newKeySet();

    /**
     * Reports to {@code registry} with the lock path as the {@code lock} tag (at most 100 distinct values).
     *
     * @param registry where to report
     * @throws NullPointerException if {@code registry} is null
     */
    public MicrometerLockMetrics(MeterRegistry registry) {
        this(registry, Function.identity());
    }

    /**
     * Reports to {@code registry} with {@code tagOf(lockPath)} as the {@code lock} tag (at most 100 distinct values),
     * for example the parent path of per-entity locks.
     *
     * @param registry where to report
     * @param tagOf makes the {@code lock} tag of a lock path
     * @throws NullPointerException if an argument is null
     */
    public MicrometerLockMetrics(MeterRegistry registry, Function<String, String> tagOf) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tagOf = Objects.requireNonNull(tagOf, "tagOf");
    }

    @Override
    public void acquired(String lockPath, Duration waited) {
        recordWait(lockPath, waited, "acquired", "zklock.lock.acquisitions");
    }

    @Override
    public void timedOut(String lockPath, Duration waited) {
        recordWait(lockPath, waited, "timeout", "zklock.lock.timeouts");
    }

    @Override
    public void released(String lockPath, Duration held) {
        Timer.builder("zklock.lock.hold")
                .tag("lock", tag(lockPath))
                .register(registry)
                .record(held);
    }

    @Override
    public void lost(String lockPath) {
        Counter.builder("zklock.lock.losses")
                .tag("lock", tag(lockPath))
                .register(registry)
                .increment();
    }

    private void recordWait(String lockPath, Duration waited, String outcome, String counter) {
        String lock = tag(lockPath);
        Timer.builder("zklock.lock.wait")
                .tags("lock", lock, "outcome", outcome)
                .register(registry)
                .record(waited);
        Counter.builder(counter).tag("lock", lock).register(registry).increment();
    }

    private String tag(String lockPath) {
        String tag = String.valueOf(tagOf.apply(lockPath));
        if (tags.contains(tag)) {
            return tag;
        }
        if (tags.size() >= MAX_TAGS) {
            return OTHER;
        }
        tags.add(tag);
        return tag;
    }
}
