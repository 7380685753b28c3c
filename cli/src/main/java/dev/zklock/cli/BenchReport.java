package dev.zklock.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a bench run: its setting and, for each scenario, what each side measured and the rows derived from
 * it; rendered as a table, as Markdown (BENCHMARKS.md) or as JSON.
 *
 * @param setting one line saying how the bench ran: the servers, the rounds, how requests were counted
 * @param origin where and from what the figures came, one "name: value" line each (date, machine, build, command;
 *     see {@link RunInfo})
 * @param results each scenario with what its sides measured, in the order they ran
 */
record BenchReport(String setting, List<String> origin, List<Result> results) {

    /**
     * One scenario and what it measured.
     *
     * @param scenario the scenario
     * @param measured what each side measured over all rounds
     */
    record Result(Scenario scenario, Map<Side, Measurement> measured) {
        List<BenchRow> rows() {
            return scenario.rows(measured);
        }
    }

    /** Returns every row, grouped by recipe in the order the recipes ran, the references (raw floor, JDK lock) last. */
    List<BenchRow> rows() {
        Map<String, List<BenchRow>> groups = new LinkedHashMap<>();
        for (Result result : results) {
            for (BenchRow row : result.rows()) {
                groups.computeIfAbsent(row.group(), g -> new ArrayList<>()).add(row);
            }
        }
        List<BenchRow> rows = new ArrayList<>();
        groups.values().stream().filter(g -> !isReference(g.get(0))).forEach(rows::addAll);
        groups.values().stream().filter(g -> isReference(g.get(0))).forEach(rows::addAll);
        return rows;
    }

    /** Returns the times two contenders held a lock at once, over the whole run (0 unless a lock is broken). */
    long overlaps() {
        return results.stream()
                .flatMap(result -> result.measured().values().stream())
                .mapToLong(Measurement::overlaps)
                .sum();
    }

    /** Returns the report as a table, grouped by recipe, with the targets kept and missed at the end. */
    String text() {
        StringBuilder out = new StringBuilder(setting).append(System.lineSeparator());
        origin.forEach(line -> out.append("  ").append(line).append(System.lineSeparator()));
        String format = "  %-34s %-30s %10s %10s %8s  %s%n";
        String group = null;
        String scenario = null;
        for (BenchRow row : rows()) {
            if (!row.group().equals(group)) {
                group = row.group();
                scenario = null;
                out.append(System.lineSeparator()).append(group).append(System.lineSeparator());
                out.append(String.format(
                        format,
                        "scenario",
                        "metric",
                        isReference(row) ? "value" : "zklock",
                        isReference(row) ? "" : "Curator",
                        isReference(row) ? "" : "ratio",
                        isReference(row) ? "" : "target"));
            }
            List<String> cells = cells(row, "  met", "  MISSED");
            out.append(String.format(
                    format,
                    row.scenario().equals(scenario) ? "" : row.scenario(),
                    row.metric(),
                    cells.get(0),
                    cells.get(1),
                    cells.get(2),
                    cells.get(3)));
            scenario = row.scenario();
        }
        out.append(System.lineSeparator()).append(targetSummary("  missed: ")).append(System.lineSeparator());
        if (overlaps() > 0) {
            out.append("LOCK BROKEN: two contenders held a lock at once ")
                    .append(overlaps())
                    .append(" times")
                    .append(System.lineSeparator());
        }
        return out.toString();
    }

    /**
     * Returns the setting, where the figures came from as a list, the rows as a Markdown table (each recipe and scenario
     * named on its first row only), and the targets met and missed: BENCHMARKS.md.
     */
    String markdown() {
        StringBuilder out = new StringBuilder("_").append(setting).append("_").append(System.lineSeparator());
        out.append(System.lineSeparator());
        origin.forEach(line -> out.append("- ").append(line).append(System.lineSeparator()));
        if (!origin.isEmpty()) {
            out.append(System.lineSeparator());
        }
        out.append("| recipe | scenario | metric | zklock | Curator | ratio | target |")
                .append(System.lineSeparator());
        out.append("| --- | --- | --- | ---: | ---: | ---: | --- |").append(System.lineSeparator());
        String group = null;
        String scenario = null;
        for (BenchRow row : rows()) {
            boolean newGroup = !row.group().equals(group);
            out.append(String.format(
                    "| %s | %s | %s | %s |%n",
                    newGroup ? row.group() : "",
                    newGroup || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    String.join(" | ", cells(row, " met", " **missed**"))));
            group = row.group();
            scenario = row.scenario();
        }
        out.append(System.lineSeparator()).append(targetSummary("- missed: "));
        return out.append(System.lineSeparator()).toString();
    }

    /** Returns the report as one line of JSON: the setting, its origin, every row, and each scenario's raw counts. */
    String json() {
        List<Object> rows = new ArrayList<>();
        for (BenchRow row : rows()) {
            rows.add(Json.object(
                    "group", row.group(),
                    "scenario", row.scenario(),
                    "metric", row.metric(),
                    "zklock", number(row.zklock()),
                    "curator", number(row.curator()),
                    "ratio", number(row.ratio()),
                    "target", row.target() == null ? null : row.target().toString(),
                    "met", row.target() == null ? null : row.isMet()));
        }
        List<Object> scenarios = new ArrayList<>();
        for (Result result : results) {
            Map<String, Object> sides = new LinkedHashMap<>();
            result.measured().forEach((side, m) -> sides.put(side.name().toLowerCase(Locale.ROOT), counts(m)));
            Scenario s = result.scenario();
            scenarios.add(Json.object(
                    "key", s.key(),
                    "group", s.group(),
                    "name", s.name(),
                    "series", s.series(),
                    "contenders", s.contenders(),
                    "sides", sides));
        }
        return Json.write(Json.object(
                "setting", setting, "origin", origin, "rows", rows, "scenarios", scenarios, "overlaps", overlaps()));
    }

    /** Returns "targets: 9 of 12 met" and a line for each row that missed its target, starting with {@code bullet}. */
    String targetSummary(String bullet) {
        List<BenchRow> targeted =
                rows().stream().filter(row -> row.target() != null).toList();
        List<String> missed = targeted.stream()
                .filter(row -> !row.isMet())
                .map(row -> row.group() + ", " + row.scenario() + ", " + row.metric() + ": " + ratioOrFigure(row)
                        + " (target " + row.target() + ")")
                .toList();
        StringBuilder out = new StringBuilder(
                String.format("targets: %d of %d met", targeted.size() - missed.size(), targeted.size()));
        missed.forEach(miss -> out.append(System.lineSeparator()).append(bullet).append(miss));
        return out.toString();
    }

    /** Returns a row's zklock figure, Curator figure, ratio and target, as shown; blank where a row has none. */
    private static List<String> cells(BenchRow row, String met, String missed) {
        return List.of(
                figure(row.metric(), row.zklock()),
                isReference(row) ? "" : figure(row.metric(), row.curator()),
                isReference(row) ? "" : ratio(row.ratio()),
                row.target() == null ? "" : row.target() + (row.isMet() ? met : missed));
    }

    private static Map<String, Object> counts(Measurement m) {
        return Json.object(
                "acquisitions", m.acquisitions(),
                "sharedAcquisitions", m.sharedAcquisitions(),
                "timeouts", m.timeouts(),
                "acquisitionsByGroup", m.acquisitionsByGroup(),
                "seconds", Json.round(m.elapsedNanos() / 1e9, 3),
                "requests", m.requests().isPresent() ? m.requests().getAsLong() : null,
                "watchEvents", m.watchEvents().isPresent() ? m.watchEvents().getAsLong() : null,
                "overlaps", m.overlaps());
    }

    private static String ratioOrFigure(BenchRow row) {
        return row.target().ofRatio() ? ratio(row.ratio()) : figure(row.metric(), row.zklock());
    }

    /** Tells whether the row is of a reference with one figure only: the raw floor, or the JDK fair lock. */
    private static boolean isReference(BenchRow row) {
        return Double.isNaN(row.curator())
                && Double.isNaN(row.ratio())
                && (row.group().equals(LockScenario.RAW_FLOOR) || row.group().equals(LockScenario.JDK_FAIR_LOCK));
    }

    private static Object number(double value) {
        return Double.isNaN(value) ? null : Json.round(value, 4);
    }

    private static String figure(String metric, double value) {
        return BenchRow.shown(metric, value);
    }

    private static String ratio(double value) {
        return BenchRow.shownRatio(value);
    }
}
