package dev.zklock.recipes.locks.micrometer;

import dev.zklock.recipes.locks.LockMetrics;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockTracer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Objects;

/**
 * Lock tracing through Micrometer's Observation API: an observation per acquisition and per hold, so a service's traces
 * show where a request waited for a lock and how long it held it. The one zklock class that needs
 * {@code micrometer-observation} on the class path (an optional dependency; nothing else loads it). Register it with
 * {@link LockMetrics#addTracer}.
 *
 * <ul>
 *   <li>{@code zklock.lock.acquire} (contextual name {@code zklock acquire}), from the call to its end: low-cardinality
 *       keys {@code zklock.lock.kind}, {@code zklock.lock.outcome} ({@code granted}, {@code timed_out},
 *       {@code interrupted}, {@code failed}) and {@code zklock.lock.local.pass}; high-cardinality keys
 *       {@code zklock.lock.path} and {@code zklock.lock.requests}; the error of a failed acquire;
 *   <li>{@code zklock.lock.hold} (contextual name {@code zklock hold}), from the grant to the release: low-cardinality
 *       keys {@code zklock.lock.kind} and {@code zklock.lock.state} (at the release); high-cardinality keys
 *       {@code zklock.lock.path} and {@code zklock.lock.fencing.token}.
 * </ul>
 *
 * <p>Both are started on the thread that acquires, so their parent is the observation current there (the request's);
 * neither is opened in a scope, so nothing of the lock's stays in a thread's context. The lock path is a
 * high-cardinality key (on a span, never a meter's tag), so per-entity locks cannot flood a meter registry. A no-op
 * registry costs one check. Thread-safe; costs no ZooKeeper call
 * ({@code LockMetricsTest.observations_eachAcquisitionAndHold_areChildrenOfTheRequestsObservation}).
 *
 * @since 0.1.0
 */
public final class MicrometerLockObservations implements LockTracer {
    private final ObservationRegistry registry;

    /**
     * Reports to {@code registry}.
     *
     * @param registry where to report
     * @throws NullPointerException if {@code registry} is null
     */
    public MicrometerLockObservations(ObservationRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public AcquisitionSpan acquisitionStarted(String lockPath, String kind) {
        if (registry.isNoop()) {
            return null;
        }
        Observation observation = start("zklock.lock.acquire", "zklock acquire", lockPath, kind);
        return (outcome, requests, localPass, failure) -> {
            observation.lowCardinalityKeyValue(
                    "zklock.lock.outcome", outcome.name().toLowerCase(Locale.ROOT));
            observation.lowCardinalityKeyValue("zklock.lock.local.pass", String.valueOf(localPass));
            observation.highCardinalityKeyValue("zklock.lock.requests", String.valueOf(requests));
            if (failure != null) {
                observation.error(failure);
            }
            observation.stop();
        };
    }

    @Override
    public HoldSpan holdStarted(String lockPath, String kind) {
        if (registry.isNoop()) {
            return null;
        }
        Observation observation = start("zklock.lock.hold", "zklock hold", lockPath, kind);
        return (long fencingToken, LockState state) -> {
            observation.lowCardinalityKeyValue("zklock.lock.state", String.valueOf(state));
            observation.highCardinalityKeyValue("zklock.lock.fencing.token", String.valueOf(fencingToken));
            observation.stop();
        };
    }

    private Observation start(String name, String contextualName, String lockPath, String kind) {
        return Observation.createNotStarted(name, registry)
                .contextualName(contextualName)
                .lowCardinalityKeyValue("zklock.lock.kind", kind)
                .highCardinalityKeyValue("zklock.lock.path", lockPath)
                .start();
    }
}
