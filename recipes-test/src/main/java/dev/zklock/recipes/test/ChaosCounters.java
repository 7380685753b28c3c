package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.apache.zookeeper.KeeperException;

/** The counts of one chaos run, kept by its threads and read for progress and the report. Thread-safe. */
final class ChaosCounters {
    private final Map<String, LongAdder> acquisitions = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> sameNode = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final Map<FaultKind, LongAdder> faults = new ConcurrentHashMap<>();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder unidentified = new LongAdder();
    private final Map<String, LongAdder> failedFaults = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> onClosedClients = new ConcurrentHashMap<>();
    private final LongAccumulator endedAfterCloseNanos = new LongAccumulator(Math::max, 0);

    void acquired(LockKind kind) {
        acquisitions.computeIfAbsent(kind.name(), k -> new LongAdder()).increment();
    }

    /** Counts an acquisition that holds the node of the hold before it on its path (a local pass, a cached node). */
    void onSameNode(LockKind kind) {
        sameNode.computeIfAbsent(kind.name(), k -> new LongAdder()).increment();
    }

    void timedOut() {
        timeouts.increment();
    }

    void unidentifiedHold() {
        unidentified.increment();
    }

    /** Counts an error by kind, operation and exception; returns whether it is the first of its sort. */
    boolean error(LockKind kind, String operation, Throwable error) {
        String key = kind.name() + " " + operation + ": " + describe(error);
        LongAdder count = errors.computeIfAbsent(key, k -> new LongAdder());
        count.increment();
        return count.sum() == 1;
    }

    /** Counts what an acquire or release on a client closed under it came to: "kind acquire: held", and so on. */
    void onClosedClient(String outcome) {
        onClosedClients.computeIfAbsent(outcome, k -> new LongAdder()).increment();
    }

    /** Records that an acquire on a closed client ended {@code nanos} after the close began. */
    void acquireEndedAfterClose(long nanos) {
        endedAfterCloseNanos.accumulate(nanos);
    }

    void injected(FaultKind kind) {
        faults.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** Returns how many faults of {@code kind} were injected so far. */
    long injectedCount(FaultKind kind) {
        LongAdder count = faults.get(kind);
        return count == null ? 0 : count.sum();
    }

    /** Counts a fault that could not be injected, by kind and reason (numbers and ids left out, so reasons add up). */
    void faultFailed(FaultKind kind, Throwable reason) {
        String message = String.valueOf(reason.getMessage()).replaceAll("0x[0-9a-fA-F]+|@[0-9a-fA-F]+|\\d+", "#");
        String key = kind + ": " + message.substring(0, Math.min(message.length(), 100));
        failedFaults.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    ChaosReport report(long seed, Duration elapsed, SafetyReport safety) {
        return report(seed, elapsed, Map.of(), safety);
    }

    /** The report with the nodes that reference kinds (Curator's) left behind, by lock path. */
    ChaosReport report(long seed, Duration elapsed, Map<String, List<String>> referenceNodesLeft, SafetyReport safety) {
        Map<String, Long> byKind = sums(acquisitions);
        long total = byKind.values().stream().mapToLong(Long::longValue).sum();
        return new ChaosReport(
                seed,
                elapsed,
                total,
                byKind,
                sums(sameNode),
                timeouts.sum(),
                unidentified.sum(),
                sums(errors),
                sums(faults),
                sums(failedFaults),
                sums(onClosedClients),
                Duration.ofNanos(endedAfterCloseNanos.get()),
                referenceNodesLeft,
                safety);
    }

    private static <K> Map<K, Long> sums(Map<K, LongAdder> adders) {
        Map<K, Long> sums = new ConcurrentHashMap<>();
        adders.forEach((key, adder) -> sums.put(key, adder.sum()));
        return sums;
    }

    /** Names an error by its class, and by the ZooKeeper code of a {@code KeeperException} it wraps. */
    static String describe(Throwable error) {
        Throwable cause = error;
        while (cause.getCause() != null && !(cause instanceof KeeperException)) {
            cause = cause.getCause();
        }
        String name = error.getClass().getSimpleName();
        return cause instanceof KeeperException keeper && cause != error ? name + " " + keeper.code() : name;
    }
}
