package dev.zklock.cli.torture;

import dev.zklock.cli.RunInfo;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.ReportRow;
import dev.zklock.recipes.test.partition.LeadershipChecker;
import dev.zklock.recipes.test.partition.LeadershipResult;
import dev.zklock.recipes.test.partition.NemesisFault;
import dev.zklock.recipes.test.partition.PartitionWorkloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Renders PARTITIONS.md, the record of one partition run, as BENCHMARKS.md records a bench: what it is and the command
 * that made it, where and from what it ran ({@link RunInfo}), the run's setting, what each column means and which way
 * is good, the summary per lock kind with each zklock row beside its Curator counterpart, the faults made and failed by
 * kind, the timeline picture and the replay line. Every row is shown, Curator's and zklock's, losses included.
 *
 * <p>Stateless and thread-safe; a pure function of its arguments.
 */
final class PartitionMarkdown {
    /** What each column of the summary means and which way is good, in the order of the columns. */
    static final List<String> LEGEND = List.of(
            "**Holds**: acquires that returned held (more is more evidence).",
            "**Linearizability**: whether the lock's acquire/release history fits a lock's sequential model (Wing-Gong"
                    + " search with Lowe's memoization, bounded per path); `valid` is good, `**invalid**` names the paths"
                    + " that fit no order through an overlap nothing explains, `invalid, explained` those that fit none"
                    + " only through an explained overlap (a holder paused past its session: what fencing is for),"
                    + " `unknown` the paths whose search reached its bound.",
            "**Violations**: overlaps nothing outside the lock explains, two holders inside at once in conflicting"
                    + " modes (0 is the only good value).",
            "**Explained overlaps**: overlaps during a client paused past its session, a session seen expired, a hold"
                    + " reported IN_DOUBT or LOST first, or a stranger's delete of a lock node that may have come"
                    + " after the holder's grant and before the other's, each grant taken at any point of its"
                    + " acquire's call at which the lock was free; expected under such faults, shown rather than"
                    + " hidden (fewer is better).",
            "**Lost updates**: increments of the unfenced counter, written under the lock, that a later write lost;"
                    + " the honest cost of a lock without fencing (fewer is better).",
            "**Late writes refused**: writes the fenced store refused because a newer token had written: fencing at"
                    + " work (a count, neither good nor bad).",
            "**Lost / duplicated elements**: acknowledged adds missing from the fenced set, or in it twice (0 is the"
                    + " only good value).",
            "**HELD after expiry (ms)**: the longest a holder still said HELD after its session was seen expired (0 is"
                    + " the target).",
            "**Dishonest holds**: holds that said HELD past expiry, or past another grant after a cut, without saying"
                    + " IN_DOUBT first, or that were granted after their client said its connection was suspended and"
                    + " before it said it was back (0 is the only good value).",
            "**Liveness**: heals not followed by a grant within the session timeout plus 2 s, and timed acquires that"
                    + " came back later than their timeout plus one request timeout (0 is good).");

    /**
     * The setting of one run.
     *
     * @param seed the run's seed
     * @param length how long the nemesis ran
     * @param clients the client JVMs
     * @param sessionTimeout the clients' session timeout
     * @param replay the command line that replays the run
     */
    record Run(long seed, Duration length, int clients, Duration sessionTimeout, String replay) {
        Run {
            Objects.requireNonNull(length, "length");
            Objects.requireNonNull(sessionTimeout, "sessionTimeout");
            Objects.requireNonNull(replay, "replay");
        }
    }

    private PartitionMarkdown() {}

    /**
     * Returns PARTITIONS.md.
     *
     * @param run the run's setting
     * @param origin where and from what the figures came, one "name: value" line each ({@link RunInfo#origin})
     * @param history the run's merged history, for the faults
     * @param rows the summary, one row per lock kind and library ({@code HistoryReport.rows})
     * @param picture the timeline picture, relative to the Markdown file
     * @return the text, ending with a newline
     */
    static String render(Run run, List<String> origin, History history, List<ReportRow> rows, String picture) {
        StringBuilder out = new StringBuilder();
        out.append("# Partition run\n\n")
                .append(
                        "_Generated by `zklock torture --partitions` (the command below): the last long run of zklock's and")
                .append(" Curator's locks side by side on a real 3-server ensemble, partitioned, killed and paused;")
                .append(" do not edit by hand._\n\n");
        origin.forEach(line -> out.append("- ").append(line).append('\n'));
        out.append(String.format(
                Locale.ROOT,
                "- run: seed %d, %s, %d client JVMs, session timeout %d ms\n\n",
                run.seed(),
                minutes(run.length()),
                run.clients(),
                run.sessionTimeout().toMillis()));
        out.append(verdict(rows)).append("\n\n");
        out.append("## Summary per lock kind\n\n");
        out.append(table(rows)).append('\n');
        out.append("What the columns mean:\n\n");
        LEGEND.forEach(line -> out.append("- ").append(line).append('\n'));
        out.append("\n## Elections\n\n")
                .append(
                        "Each election's terms as `LeadershipChecker` judges them: a term cut off (its session ended, its")
                .append(
                        " connection suspended or lost) must be told revoked; epochs grow; each client JVM's observer of")
                .append(" each latch is at most one event behind after a heal.\n\n")
                .append(LeadershipResult.table(LeadershipChecker.check(
                                history,
                                PartitionWorkloads.leaderKeys(),
                                PartitionWorkloads.observedElections(),
                                run.sessionTimeout())
                        .values()))
                .append('\n');
        out.append("## Faults\n\n").append(faults(history)).append('\n');
        out.append("## Timeline\n\n")
                .append("One lane per lock path, each hold a bar in its holder's row coloured by client JVM, overlaps")
                .append(" shaded red (orange when explained), fault windows shaded across all lanes.\n\n")
                .append("![timeline of the run](")
                .append(picture)
                .append(")\n\n");
        out.append("## Replay\n\n```\n").append(run.replay()).append("\n```\n");
        return out.toString();
    }

    /** One sentence per library, zklock first: how many of its lock kinds showed a safety violation. */
    static String verdict(List<ReportRow> rows) {
        Map<String, long[]> byLibrary = new TreeMap<>(
                Comparator.comparing((String l) -> !l.equals("zklock")).thenComparing(Comparator.naturalOrder()));
        for (ReportRow row : rows) {
            long[] counts = byLibrary.computeIfAbsent(row.library(), l -> new long[2]);
            counts[0]++;
            counts[1] += row.isUnsafe() ? 1 : 0;
        }
        List<String> parts = new ArrayList<>();
        byLibrary.forEach((library, c) -> parts.add(
                String.format(Locale.ROOT, "%s: %d of %d lock kinds with a safety violation", library, c[1], c[0])));
        return parts.isEmpty() ? "No lock was held." : String.join("; ", parts) + ".";
    }

    /** The summary table: each zklock kind beside the Curator kind it stands for, then the rest. */
    static String table(List<ReportRow> rows) {
        StringBuilder out = new StringBuilder(
                "| Lock kind | Library | Holds | Linearizability | Violations | Explained overlaps | Lost updates"
                        + " | Late writes refused | Lost elements | Duplicated elements | HELD after expiry (ms)"
                        + " | Dishonest holds | Liveness |\n");
        out.append("| --- | --- |").append(" ---: |".repeat(11)).append('\n');
        for (ReportRow r : ordered(rows)) {
            out.append("| ").append(String.join(" | ", cells(r))).append(" |\n");
        }
        return out.toString();
    }

    /**
     * The rows side by side: grouped by the Curator kind each stands for (zklock's reentrant, exclusive and cohort
     * locks stand for Curator's mutex), zklock first in each group.
     */
    static List<ReportRow> ordered(List<ReportRow> rows) {
        List<ReportRow> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparing((ReportRow r) -> counterpart(r.kind()))
                .thenComparing(r -> !r.library().equals("zklock"))
                .thenComparing(ReportRow::library)
                .thenComparing(ReportRow::kind));
        return sorted;
    }

    /** The Curator kind a zklock kind stands for. */
    static String counterpart(String kind) {
        return switch (kind) {
            case "reentrant", "exclusive", "cohort" -> "mutex";
            default -> kind;
        };
    }

    /** The cells of one row, in the order of the columns. */
    static List<String> cells(ReportRow r) {
        return List.of(
                r.kind(),
                r.library(),
                Long.toString(r.holds()),
                linearizability(r),
                Long.toString(r.unexplainedOverlaps()),
                Long.toString(r.explainedOverlaps()),
                Long.toString(r.lostUpdates()),
                Long.toString(r.lateWritesRefused()),
                Long.toString(r.lostElements()),
                Long.toString(r.duplicatedElements()),
                Long.toString(r.maxHeldAfterExpiryMillis()),
                Long.toString(r.dishonestHolds()),
                Long.toString(r.livenessViolations()));
    }

    private static String linearizability(ReportRow r) {
        return r.linearizability();
    }

    /**
     * The faults by kind: made (started), healed (a stranger's delete: done), and failed (could not be made; a
     * stranger's delete that found no node); every kind, 0 included.
     */
    static String faults(History history) {
        Map<String, long[]> counts = new LinkedHashMap<>();
        for (NemesisFault kind : NemesisFault.values()) {
            counts.put(kind.historyName(), new long[3]);
        }
        for (HistoryEvent e : history.events()) {
            // A stranger's delete: the nemesis only asks (an info line); the stranger records the delete itself.
            boolean stranger = e.process().equals("stranger");
            if (!e.process().equals("nemesis") && !stranger) {
                continue;
            }
            long[] c = counts.computeIfAbsent(e.f(), k -> new long[3]);
            switch (e.type()) {
                case INVOKE -> c[0]++;
                case OK -> c[1]++;
                case FAIL -> c[2]++;
                case INFO -> c[1] += stranger ? 1 : 0; // perhaps deleted: its window closes as a delete's
            }
        }
        StringBuilder out = new StringBuilder("| Fault | Made | Healed | Failed |\n| --- | ---: | ---: | ---: |\n");
        counts.forEach(
                (kind, c) -> out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |\n", kind, c[0], c[1], c[2])));
        return out.toString();
    }

    private static String minutes(Duration length) {
        long seconds = length.toSeconds();
        return seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
    }
}
