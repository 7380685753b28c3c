package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockMetricsListener;
import dev.zklock.recipes.locks.LockTracer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics listeners and tracers of one client, told in turn; one that throws is logged and skipped. Thread-safe.
 */
public final class MetricsDispatch {
    private static final Logger logger = LoggerFactory.getLogger(MetricsDispatch.class);

    private final List<LockMetricsListener> listeners = new CopyOnWriteArrayList<>();
    private final List<LockTracer> tracers = new CopyOnWriteArrayList<>();

    public void add(LockMetricsListener listener) {
        listeners.add(listener);
    }

    public void remove(LockMetricsListener listener) {
        listeners.remove(listener);
    }

    public void addTracer(LockTracer tracer) {
        tracers.add(tracer);
    }

    public void removeTracer(LockTracer tracer) {
        tracers.remove(tracer);
    }

    /** The tracers now, a list that is empty when there is none. */
    List<LockTracer> tracers() {
        return tracers;
    }

    /**
     * Tells whether a metrics listener is registered: a caller with nothing to time reads no clock. A listener added
     * meanwhile hears of the next acquire or release, not of the one under way.
     */
    public boolean isObserved() {
        return !listeners.isEmpty();
    }

    public void acquire(String lockPath, boolean acquired, long waitedNanos) {
        if (listeners.isEmpty()) {
            return;
        }
        Duration waited = Duration.ofNanos(waitedNanos);
        tell(lockPath, l -> {
            if (acquired) {
                l.acquired(lockPath, waited);
            } else {
                l.timedOut(lockPath, waited);
            }
        });
    }

    public void released(String lockPath, long heldNanos) {
        if (!listeners.isEmpty()) {
            Duration held = Duration.ofNanos(heldNanos);
            tell(lockPath, l -> l.released(lockPath, held));
        }
    }

    public void lost(String lockPath) {
        tell(lockPath, l -> l.lost(lockPath));
    }

    private void tell(String lockPath, Consumer<LockMetricsListener> call) {
        for (LockMetricsListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                logger.warn("{}: lock metrics listener {} threw", lockPath, listener, e);
            }
        }
    }
}
