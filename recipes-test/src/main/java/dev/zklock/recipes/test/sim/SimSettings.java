package dev.zklock.recipes.test.sim;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How large the plans of a simulation may be, which lock kinds and faults a seed may choose, and the simulated session
 * timeout. Immutable.
 *
 * @param maxClients the most clients of a plan, at least 1
 * @param maxThreads the most simulated threads, at least 2
 * @param maxAcquires the most acquires of one thread, at least 1
 * @param maxFaults the most faults, at least 0
 * @param kinds the lock kinds threads may use
 * @param faults the faults a plan may have
 * @param sessionTimeoutMicros the simulated session timeout; a request timeout is two thirds of it
 * @param faultWindowMicros faults fall in this time from the start
 * @param queueViews whether the clients' lock paths use queue views, as a lock built with {@code queueView()} does (one persistent recursive watch per session and
 *     lock path answers the listings and the data watches of the asynchronous runners)
 */
public record SimSettings(
        int maxClients,
        int maxThreads,
        int maxAcquires,
        int maxFaults,
        Set<SimPlan.Kind> kinds,
        Set<SimPlan.FaultKind> faults,
        long sessionTimeoutMicros,
        long faultWindowMicros,
        boolean queueViews) {
    /** Checks the settings. */
    public SimSettings {
        Objects.requireNonNull(kinds, "kinds");
        Objects.requireNonNull(faults, "faults");
        if (maxClients < 1 || maxThreads < 2 || maxAcquires < 1 || maxFaults < 0 || kinds.isEmpty()) {
            throw new IllegalArgumentException(String.format(
                    "simulation settings out of range: %d clients, %d threads, %d acquires, %d faults, kinds %s",
                    maxClients, maxThreads, maxAcquires, maxFaults, kinds));
        }
        // EnumSets, not Set.copyOf: an immutable set's order changes from one JVM to the next, and a seed picks by
        // order
        kinds = Collections.unmodifiableSet(EnumSet.copyOf(kinds));
        faults = Collections.unmodifiableSet(
                faults.isEmpty() ? EnumSet.noneOf(SimPlan.FaultKind.class) : EnumSet.copyOf(faults));
    }

    /** Every lock kind and every fault, plans of up to 3 clients, 6 threads of 6 acquires, 5 faults; 30 ms sessions. */
    public static SimSettings defaults() {
        return new SimSettings(
                3,
                6,
                6,
                5,
                EnumSet.allOf(SimPlan.Kind.class),
                EnumSet.allOf(SimPlan.FaultKind.class),
                30_000,
                60_000,
                false);
    }

    /** As these, with only {@code kinds}. */
    public SimSettings withKinds(List<SimPlan.Kind> newKinds) {
        return new SimSettings(
                maxClients,
                maxThreads,
                maxAcquires,
                maxFaults,
                Set.copyOf(newKinds),
                faults,
                sessionTimeoutMicros,
                faultWindowMicros,
                queueViews);
    }

    /** As these, with the clients' queue views on or off. */
    public SimSettings withQueueViews(boolean on) {
        return new SimSettings(
                maxClients,
                maxThreads,
                maxAcquires,
                maxFaults,
                kinds,
                faults,
                sessionTimeoutMicros,
                faultWindowMicros,
                on);
    }
}
