package dev.zklock.recipes.test.partition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What {@link LeadershipChecker} found on one election of the leadership workloads.
 *
 * <p>Immutable and thread-safe (the lists are copies).
 *
 * @param key the election's path, {@code /partitions/<library>/<kind>}
 * @param terms the terms begun (the {@code ok} acquires)
 * @param cutOff the terms cut off: their session ended, or their client's connection was suspended or lost, while
 *     they were open
 * @param revokedDelivered the terms cut off whose holder recorded its revocation (a {@code state} IN_DOUBT or LOST)
 *     before the term ended
 * @param missingRevokes each term cut off with no revocation recorded, described
 * @param epochRegressions each term whose epoch was not larger than every epoch granted before it, described
 * @param checkpoints the observer's looks judged: one per observer client and heal, where its client was connected
 * @param maxObserverBehind the most events an observer was behind the history at a checkpoint
 * @param observerBehind each checkpoint where an observer was behind by more than one event, described
 * @param silentObservers each checkpoint where an observer had told nothing at all yet, described
 * @param staleReports each GRANTED an observer told of a leader it had seen replaced, or whose session had ended
 */
public record LeadershipResult(
        String key,
        long terms,
        long cutOff,
        long revokedDelivered,
        List<String> missingRevokes,
        List<String> epochRegressions,
        long checkpoints,
        long maxObserverBehind,
        List<String> observerBehind,
        List<String> silentObservers,
        List<String> staleReports) {

    /** Copies the lists. */
    public LeadershipResult {
        missingRevokes = List.copyOf(missingRevokes);
        epochRegressions = List.copyOf(epochRegressions);
        observerBehind = List.copyOf(observerBehind);
        silentObservers = List.copyOf(silentObservers);
        staleReports = List.copyOf(staleReports);
    }

    /**
     * Returns each violation, one line each, prefixed with the key: a term cut off with no revocation, an epoch that
     * did not grow, an observer behind by more than one event or silent at a checkpoint, a stale report.
     *
     * @return the violations; empty for a clean election
     */
    public List<String> violations() {
        List<String> found = new ArrayList<>();
        missingRevokes.forEach(m -> found.add(key + ": term cut off with no revoked: " + m));
        epochRegressions.forEach(m -> found.add(key + ": epoch not growing: " + m));
        observerBehind.forEach(m -> found.add(key + ": observer behind: " + m));
        silentObservers.forEach(m -> found.add(key + ": observer silent: " + m));
        staleReports.forEach(m -> found.add(key + ": observer reported a leader that is gone: " + m));
        return found;
    }

    /**
     * Renders results as a Markdown table, one row per election in path order: terms, terms cut off, revocations
     * delivered, epoch regressions, observer checkpoints, the most events an observer was behind, the checkpoints
     * where one was silent, stale reports.
     *
     * @param results the results
     * @return the table, ending with a newline
     */
    public static String table(Collection<LeadershipResult> results) {
        StringBuilder out = new StringBuilder("| Election | Terms | Cut off | Revoked delivered | Epoch regressions"
                + " | Observer checkpoints | Max events behind | Silent observers | Stale reports |\n| --- |"
                + " ---: |".repeat(8)
                + '\n');
        results.stream()
                .sorted(Comparator.comparing(LeadershipResult::key))
                .forEach(r -> out.append(String.format(
                        Locale.ROOT,
                        "| %s | %d | %d | %d | %d | %d | %d | %d | %d |%n",
                        r.key().substring(PartitionWorkloads.ROOT.length() + 1),
                        r.terms(),
                        r.cutOff(),
                        r.revokedDelivered(),
                        r.epochRegressions().size(),
                        r.checkpoints(),
                        r.maxObserverBehind(),
                        r.silentObservers().size(),
                        r.staleReports().size())));
        return out.toString();
    }
}
