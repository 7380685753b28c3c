package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.CheckResult;
import dev.zklock.recipes.test.history.FileCounter;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryReport;
import dev.zklock.recipes.test.history.LivenessChecker;
import dev.zklock.recipes.test.history.MutexChecker;
import dev.zklock.recipes.test.history.ReportRow;
import dev.zklock.recipes.test.history.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What one {@link PartitionRun} did and what the checkers found in its histories.
 *
 * <p>The faults made are counted from the history as the checkers see them: a nemesis fault's {@code invoke}, and for a
 * stranger's delete the stranger's own delete windows (a command that found no node is a failure). The faults failed
 * are the nemesis's {@code fail} lines (a fault it could not make: no leader to pause) and the stranger's.
 *
 * <p>Immutable and thread-safe (the maps and lists are copies; {@link History} is immutable).
 *
 * @param runId the run id that prefixed the run's namespaces ({@code zkp} and four hex digits)
 * @param runDir the run's directory (histories, store, and the rig's logs when it is the rig's)
 * @param historyDir the directory of the history files
 * @param historyFiles every history file of the run, by name
 * @param history the files merged
 * @param counterFinals the unfenced counters' final values, per lock path
 * @param report the checkers, as configured for the run (session timeout, leases, timeouts)
 * @param rows the report's rows, one per lock kind and library
 * @param mutex the mutual-exclusion checker's result per lock path
 * @param leadership the leadership checker's result per election ({@link PartitionWorkloads#leaderKeys})
 * @param faultsMade the faults made, by kind
 * @param faultsFailed the faults that could not be made, by kind
 * @param exitCodes each JVM's exit code by node ({@code c1}, {@code obs}), empty if it was still running after the
 *     grace and was killed
 */
public record PartitionResult(
        String runId,
        Path runDir,
        Path historyDir,
        List<Path> historyFiles,
        History history,
        Map<String, Long> counterFinals,
        HistoryReport report,
        List<ReportRow> rows,
        Map<String, CheckResult> mutex,
        Map<String, LeadershipResult> leadership,
        Map<NemesisFault, Integer> faultsMade,
        Map<NemesisFault, Integer> faultsFailed,
        Map<String, OptionalInt> exitCodes) {

    /** The library whose rows are judged; Curator's are reported beside them. */
    public static final String JUDGED_LIBRARY = "zklock";

    /** Copies the collections. */
    public PartitionResult {
        historyFiles = List.copyOf(historyFiles);
        counterFinals = Map.copyOf(counterFinals);
        rows = List.copyOf(rows);
        mutex = Map.copyOf(mutex);
        leadership = Map.copyOf(leadership);
        faultsMade = Map.copyOf(faultsMade);
        faultsFailed = Map.copyOf(faultsFailed);
        exitCodes = Map.copyOf(exitCodes);
    }

    /**
     * Returns the checkers of a run whose clients' sessions time out after {@code sessionTimeout}: the semaphores'
     * lease counts, the workloads' acquire timeout, and a request timeout of two thirds of the session (ZooKeeper's
     * client read timeout).
     *
     * @param sessionTimeout the clients' session timeout
     * @return the report
     */
    public static HistoryReport report(Duration sessionTimeout) {
        return HistoryReport.create(mutexChecker(sessionTimeout), livenessChecker(sessionTimeout));
    }

    /** The liveness checker of a run whose clients have {@code sessionTimeout}: the workers' acquire timeout. */
    public static LivenessChecker livenessChecker(Duration sessionTimeout) {
        return LivenessChecker.create(
                sessionTimeout,
                Worker.ACQUIRE_TIMEOUT,
                sessionTimeout.multipliedBy(2).dividedBy(3));
    }

    /** The mutual-exclusion checker of a run whose clients have {@code sessionTimeout}, with the semaphores' leases. */
    public static MutexChecker mutexChecker(Duration sessionTimeout) {
        MutexChecker mutex = MutexChecker.create(sessionTimeout);
        for (String key : PartitionWorkloads.keys()) {
            if (key.endsWith("/semaphore")) {
                mutex = mutex.withLeases(key, PartitionWorkloads.LEASES);
            }
        }
        return mutex;
    }

    /** Reads the run's histories and counters and runs the checkers. */
    static PartitionResult judge(
            String runId,
            Path runDir,
            Path historyDir,
            Path store,
            Duration sessionTimeout,
            Map<String, OptionalInt> exitCodes)
            throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(historyDir)) {
            files = listed.filter(f -> f.getFileName().toString().endsWith(".history"))
                    .sorted()
                    .toList();
        }
        History history = History.read(files.toArray(Path[]::new));
        Map<String, Long> counters = new TreeMap<>();
        for (String key : PartitionWorkloads.fencedKeys()) {
            Path file = PartitionWorkloads.counterFile(store, key);
            if (Files.exists(file)) {
                counters.put(key, FileCounter.open(file).read());
            }
        }
        HistoryReport report = report(sessionTimeout);
        MutexChecker mutex = mutexChecker(sessionTimeout);
        return new PartitionResult(
                runId,
                runDir,
                historyDir,
                files,
                history,
                counters,
                report,
                report.rows(history, counters),
                mutex.check(history),
                LeadershipChecker.check(
                        history,
                        PartitionWorkloads.leaderKeys(),
                        PartitionWorkloads.observedElections(),
                        sessionTimeout),
                made(history),
                failed(history),
                exitCodes);
    }

    /**
     * Returns the summary: the faults table, one row per lock kind and library, and a table of the elections (terms,
     * revocations, epochs, observers), as Markdown.
     */
    public String summary() {
        StringBuilder out = new StringBuilder(report.render(history, counterFinals));
        out.append('\n').append(LeadershipResult.table(leadership.values()));
        return out.toString();
    }

    /**
     * Returns each violation of a zklock lock kind, one line each: an unexplained overlap, a lost or duplicated fenced
     * element, a hold said HELD after its session expired, a dishonest hold (HELD past another grant after a cut, or
     * granted while its client said its connection was suspended), a linearizability verdict INVALID that no explained
     * overlap accounts for, a liveness violation, an election's term cut off with no revocation, an epoch that did
     * not grow, an observer behind by more than one event after a heal or telling a leader that is gone
     * ({@link LeadershipChecker}). Curator's rows and elections are reported, never judged.
     *
     * @return the violations; empty for a clean run
     */
    public List<String> violations() {
        List<String> found = new ArrayList<>();
        for (ReportRow row : rows) {
            if (!row.library().equals(JUDGED_LIBRARY)) {
                continue;
            }
            String kind = row.library() + " " + row.kind() + ": ";
            count(found, kind, row.unexplainedOverlaps(), "unexplained overlaps");
            count(found, kind, row.lostElements(), "lost fenced elements");
            count(found, kind, row.duplicatedElements(), "duplicated fenced elements");
            if (row.maxHeldAfterExpiryMillis() > 0) {
                found.add(kind + "HELD up to " + row.maxHeldAfterExpiryMillis() + " ms after its session expired");
            }
            count(found, kind, row.dishonestHolds(), "dishonest holds");
            count(found, kind, row.livenessViolations(), "liveness violations");
        }
        mutex.forEach((key, result) -> {
            boolean explained =
                    result.witness().isPresent() && result.witness().get().isExplained();
            if (libraryOf(key).equals(JUDGED_LIBRARY) && result.verdict() == Verdict.INVALID && !explained) {
                found.add(key + ": not linearizable, " + result.detail()
                        + result.witness().map(w -> "; overlap " + w).orElse(""));
            }
        });
        leadership.forEach((key, result) -> {
            if (libraryOf(key).equals(JUDGED_LIBRARY)) {
                found.addAll(result.violations());
            }
        });
        return found;
    }

    /** Returns whether every JVM ended within the grace with exit code 0. */
    public boolean allExitedZero() {
        return exitCodes.values().stream().allMatch(code -> code.isPresent() && code.getAsInt() == 0);
    }

    private static void count(List<String> found, String kind, long n, String what) {
        if (n > 0) {
            found.add(kind + n + " " + what);
        }
    }

    /** The library of a lock path, {@code /partitions/<library>/<kind>}: its second-to-last segment. */
    static String libraryOf(String key) {
        String[] segments = key.split("/");
        return segments.length > 1 ? segments[segments.length - 2] : "-";
    }

    private static Map<NemesisFault, Integer> made(History history) {
        Map<NemesisFault, Integer> made = new EnumMap<>(NemesisFault.class);
        HistoryReport.faults(history).forEach((name, count) -> kind(name).ifPresent(k -> made.put(k, count)));
        return made;
    }

    private static Map<NemesisFault, Integer> failed(History history) {
        Map<NemesisFault, Integer> failed = new EnumMap<>(NemesisFault.class);
        for (HistoryEvent event : history.events()) {
            boolean ours = event.process().equals(NemesisLog.PROCESS)
                    || event.process().equals("stranger");
            if (ours && event.type() == HistoryEvent.Type.FAIL) {
                kind(event.f()).ifPresent(k -> failed.merge(k, 1, Integer::sum));
            }
        }
        return failed;
    }

    private static Optional<NemesisFault> kind(String historyName) {
        return Stream.of(NemesisFault.values())
                .filter(k -> k.historyName().equals(historyName))
                .findFirst();
    }
}
