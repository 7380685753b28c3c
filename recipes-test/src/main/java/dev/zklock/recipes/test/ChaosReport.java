package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a chaos run did and what its {@link SafetyMonitor} saw. Immutable, so safe for use by multiple threads.
 *
 * @param seed the seed of the run: the same seed replays the same fault schedule and choices
 * @param elapsed how long the workload ran so far
 * @param acquisitions acquires that returned holding
 * @param acquisitionsByKind the same by lock kind name
 * @param sameNodeByKind acquisitions, by lock kind name, that held the node of the hold before them on their path: a
 *     cohort lock's local passes, cached nodes taken again, read nodes shared by local readers (kinds with none are
 *     left out)
 * @param timeouts acquires whose time ran out
 * @param unidentifiedHolds acquisitions whose hold was lost before it could be identified and recorded
 * @param errors failed acquires and releases, by "kind operation: exception" (ZooKeeper refused, or gave up retrying)
 * @param faults faults injected, by kind
 * @param failedFaults faults that could not be injected, by "KIND: reason" (for example a session that had just ended
 *     anyway, or a client with no connection to drop)
 * @param onClosedClients what the acquires and releases on a client closed under them ({@link FaultKind#CLIENT_CLOSE})
 *     came to, by "kind operation: outcome" ({@code zk-cohort acquire: held}, {@code acquire: timed out}, or the
 *     exception's class; counted here, not among the errors)
 * @param longestAcquireAfterClose the longest time from a client's close to the end of an acquire on it: how promptly
 *     a close ends the acquires under way (one that never ends is a stuck waiter)
 * @param referenceNodesLeft the lock nodes that kinds run as a reference ({@linkplain LockKind#isReference()
 *     Curator's}) left behind, by lock path, each with its session: reported, not counted among the safety report's
 *     leaked nodes (which are the other kinds')
 * @param safety what the monitor saw
 */
public record ChaosReport(
        long seed,
        Duration elapsed,
        long acquisitions,
        Map<String, Long> acquisitionsByKind,
        Map<String, Long> sameNodeByKind,
        long timeouts,
        long unidentifiedHolds,
        Map<String, Long> errors,
        Map<FaultKind, Long> faults,
        Map<String, Long> failedFaults,
        Map<String, Long> onClosedClients,
        Duration longestAcquireAfterClose,
        Map<String, List<String>> referenceNodesLeft,
        SafetyReport safety) {

    /**
     * Copies the maps, sorted for reading.
     *
     * @throws NullPointerException if an argument is null
     */
    public ChaosReport {
        acquisitionsByKind = Map.copyOf(acquisitionsByKind);
        sameNodeByKind = Map.copyOf(sameNodeByKind);
        errors = Map.copyOf(errors);
        faults = Map.copyOf(faults);
        failedFaults = Map.copyOf(failedFaults);
        onClosedClients = Map.copyOf(onClosedClients);
        Objects.requireNonNull(longestAcquireAfterClose, "longestAcquireAfterClose");
        referenceNodesLeft = Map.copyOf(referenceNodesLeft);
    }

    /**
     * Tells whether the run broke no safety property: overlaps a fault explains (a holder's session ended, or a stranger
     * deleted its node, while it was inside) are printed with their count and longest, and are no failure.
     *
     * @return whether the {@linkplain #safety() monitor's report} is clean
     */
    public boolean isClean() {
        return safety.isClean();
    }

    /**
     * Returns the number of faults injected, of every kind.
     *
     * @return the sum of {@link #faults()}
     */
    public long faultCount() {
        return faults.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Returns the report on several lines: the seed, the work done, the faults, what closed clients' threads met, the
     * nodes Curator's kinds left, the safety counts (overlaps that are violations, and explained overlaps with the longest), the first violations and
     * the first explained overlaps.
     *
     * @return a readable report
     */
    @Override
    public String toString() {
        String nl = System.lineSeparator();
        Map<FaultKind, Long> byKind = new EnumMap<>(FaultKind.class);
        byKind.putAll(faults);
        return "seed " + seed + ", " + elapsed.toSeconds() + " s" + nl
                + "acquisitions " + acquisitions + " " + new TreeMap<>(acquisitionsByKind) + ", timeouts " + timeouts
                + ", unidentified holds " + unidentifiedHolds + nl
                + "on the node of the hold before " + new TreeMap<>(sameNodeByKind) + nl
                + "faults " + faultCount() + " " + byKind + ", failed to inject " + new TreeMap<>(failedFaults) + nl
                + "errors " + new TreeMap<>(errors) + nl
                + (onClosedClients.isEmpty()
                        ? ""
                        : "on closed clients " + new TreeMap<>(onClosedClients) + ", the last acquire ended "
                                + longestAcquireAfterClose.toMillis() + " ms after its close" + nl)
                + (referenceNodesLeft.isEmpty()
                        ? ""
                        : "left behind by Curator's kinds (reported, not judged) " + new TreeMap<>(referenceNodesLeft)
                                + nl)
                + safety;
    }
}
