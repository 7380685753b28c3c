package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Runs every checker over a history and sums their findings per lock kind and library, as rows and as a Markdown
 * summary: a table of the faults injected, by kind, then one row per kind and library ({@link ReportRow}).
 *
 * <p>The kind and library of a path are its last two segments: {@code /partitions/zklock/reentrant} is zklock's
 * {@code reentrant}, {@code /partitions/curator/mutex} Curator's {@code mutex}. Linearizability violations (paths) and
 * unexplained overlaps are the violations; explained overlaps and the counter's lost updates are the honest numbers
 * beside them.
 *
 * <p>Immutable and thread-safe; the methods are pure functions of the history.
 */
public final class HistoryReport {
    private final MutexChecker mutex;
    private final LivenessChecker liveness;

    private HistoryReport(MutexChecker mutex, LivenessChecker liveness) {
        this.mutex = mutex;
        this.liveness = liveness;
    }

    /**
     * Returns a report that runs these configured checkers and the unconfigured ones.
     *
     * @param mutex the mutual-exclusion checker, with the semaphores' lease counts
     * @param liveness the liveness checker, with the run's timeouts
     * @return the report
     */
    public static HistoryReport create(MutexChecker mutex, LivenessChecker liveness) {
        return new HistoryReport(Objects.requireNonNull(mutex, "mutex"), Objects.requireNonNull(liveness, "liveness"));
    }

    /**
     * Returns the number of faults of each kind the nemesis started.
     *
     * @param history the history
     * @return the count per fault kind, in kind order
     */
    public static Map<String, Integer> faults(History history) {
        Map<String, Integer> faults = new TreeMap<>();
        Timeline.of(history).faults().forEach(f -> faults.merge(f.kind(), 1, Integer::sum));
        return faults;
    }

    /**
     * Runs the checkers and returns one row per lock kind and library.
     *
     * @param history the history
     * @param counterFinals the unfenced counters' final values per path, where known
     * @return the rows, by library then kind
     * @throws IllegalArgumentException as the checkers do, naming what does not parse
     */
    public List<ReportRow> rows(History history, Map<String, Long> counterFinals) {
        Map<String, RowSums> sums = new TreeMap<>();
        mutex.check(history).forEach((key, r) -> sumsOf(sums, key).add(r));
        CounterChecker.check(history, counterFinals)
                .forEach((key, r) -> sumsOf(sums, key).add(r));
        FencedSetChecker.check(history).forEach((key, r) -> sumsOf(sums, key).add(r));
        HoldStateChecker.check(history).forEach((key, r) -> sumsOf(sums, key).add(r));
        liveness.check(history).forEach(v -> sumsOf(sums, v.key()).add(v));
        List<ReportRow> rows = new ArrayList<>();
        sums.forEach((group, s) -> {
            String[] names = group.split("\t");
            rows.add(s.toRow(names[0], names[1]));
        });
        return rows;
    }

    /**
     * Renders the faults and the rows as Markdown.
     *
     * @param history the history
     * @param counterFinals the unfenced counters' final values per path, where known
     * @return the summary, ending with a newline
     */
    public String render(History history, Map<String, Long> counterFinals) {
        StringBuilder out = new StringBuilder("| Fault | Injected |\n| --- | ---: |\n");
        faults(history).forEach((kind, count) -> out.append("| ")
                .append(kind)
                .append(" | ")
                .append(count)
                .append(" |\n"));
        out.append("\n| Library | Lock kind | Holds | Linearizability | Unexplained overlaps | Explained overlaps"
                + " | Lost updates | Late writes refused | Lost elements | Duplicated elements"
                + " | Max HELD after expiry (ms) | Dishonest holds | Liveness violations |\n");
        out.append("| --- | --- |").append(" ---: |".repeat(11)).append('\n');
        for (ReportRow r : rows(history, counterFinals)) {
            String verdict = r.linearizability();
            out.append("| ")
                    .append(r.library())
                    .append(" | ")
                    .append(r.kind())
                    .append(" | ")
                    .append(r.holds())
                    .append(" | ")
                    .append(verdict);
            for (long n : new long[] {
                r.unexplainedOverlaps(),
                r.explainedOverlaps(),
                r.lostUpdates(),
                r.lateWritesRefused(),
                r.lostElements(),
                r.duplicatedElements(),
                r.maxHeldAfterExpiryMillis(),
                r.dishonestHolds(),
                r.livenessViolations()
            }) {
                out.append(" | ").append(n);
            }
            out.append(" |\n");
        }
        return out.toString();
    }

    private static RowSums sumsOf(Map<String, RowSums> sums, String key) {
        return sums.computeIfAbsent(group(key), g -> new RowSums());
    }

    /** The library and kind of {@code key}, TAB-separated. */
    static String group(String key) {
        String[] segments = key.split("/");
        String kind = segments.length > 0 ? segments[segments.length - 1] : key;
        String library =
                segments.length > 1 && !segments[segments.length - 2].isEmpty() ? segments[segments.length - 2] : "-";
        return library + "\t" + kind;
    }
}
