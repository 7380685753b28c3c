package dev.zklock.cli.bench;

import dev.zklock.cli.Json;
import dev.zklock.cli.MachineLoad;
import dev.zklock.cli.RunInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The outcome of a bench run: its setting and, for each scenario, what each side measured and the rows derived from
 * it; rendered as a table, as Markdown (BENCHMARKS.md, see {@link BenchMarkdown}) or as JSON. The rows fall in two
 * tables: zklock against its counterpart ({@link BenchRow}), and the floors and baselines measured beside them
 * ({@link FloorRow}). Immutable once made, and safe for use by any thread if its measurements are not changed.
 *
 * @param setting one line saying how the bench ran: the servers, the rounds, how requests were counted
 * @param origin where and from what the figures came, one "name: value" line each (date, machine, build, command;
 *     see {@link RunInfo})
 * @param load how busy the machine was at the start and at the end of the run; a loaded machine is named first
 * @param results each scenario with what its sides measured, in the order they ran
 */
record BenchReport(String setting, List<String> origin, MachineLoad load, List<Result> results) {

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

        List<FloorRow> floorRows() {
            return scenario.floorRows(measured);
        }
    }

    /** Returns every row of zklock against its counterpart, grouped by recipe in the order the recipes ran. */
    List<BenchRow> rows() {
        return grouped(Result::rows, BenchRow::group);
    }

    /** Returns every row of a floor or a baseline, grouped by what was measured, in the order they first ran. */
    List<FloorRow> floorRows() {
        return grouped(Result::floorRows, FloorRow::floor);
    }

    private <R> List<R> grouped(Function<Result, List<R>> rowsOf, Function<R, String> groupOf) {
        Map<String, List<R>> groups = new LinkedHashMap<>();
        for (Result result : results) {
            for (R row : rowsOf.apply(result)) {
                groups.computeIfAbsent(groupOf.apply(row), g -> new ArrayList<>())
                        .add(row);
            }
        }
        return groups.values().stream().flatMap(List::stream).toList();
    }

    /** Returns the times two contenders held a lock at once, over the whole run (0 unless a lock is broken). */
    long overlaps() {
        return results.stream()
                .flatMap(result -> result.measured().values().stream())
                .mapToLong(Measurement::overlaps)
                .sum();
    }

    /** Returns the report as a table, grouped by recipe, then the floors, then the targets kept and missed. */
    String text() {
        String nl = System.lineSeparator();
        StringBuilder out = new StringBuilder(setting).append(nl);
        load.warning()
                .ifPresent(warning ->
                        out.append("LOADED MACHINE: ").append(warning).append(nl));
        origin.forEach(line -> out.append("  ").append(line).append(nl));
        String format = "  %-34s %-30s %10s %11s %8s  %s%n";
        String group = null;
        String scenario = null;
        for (BenchRow row : rows()) {
            if (!row.group().equals(group)) {
                group = row.group();
                scenario = null;
                out.append(nl).append(group).append(nl);
                out.append(String.format(format, "scenario", "metric", "zklock", "counterpart", "ratio", "target"));
            }
            List<String> cells = row.cells("  met", "  MISSED");
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
        String floorFormat = "  %-34s %-30s %10s%n";
        group = null;
        for (FloorRow row : floorRows()) {
            if (group == null) {
                out.append(nl).append("Floors and baselines (no lock library)").append(nl);
            }
            if (!row.floor().equals(group)) {
                group = row.floor();
                scenario = null;
                out.append(nl).append(group).append(nl);
                out.append(String.format(floorFormat, "scenario", "metric", "value"));
            }
            out.append(String.format(
                    floorFormat,
                    row.scenario().equals(scenario) ? "" : row.scenario(),
                    row.metric(),
                    BenchRow.shown(row.metric(), row.value())));
            scenario = row.scenario();
        }
        out.append(nl).append(targetSummary("  missed: ")).append(nl);
        if (overlaps() > 0) {
            out.append("LOCK BROKEN: two contenders held a lock at once ")
                    .append(overlaps())
                    .append(" times")
                    .append(nl);
        }
        return out.toString();
    }

    /** Returns BENCHMARKS.md: see {@link BenchMarkdown#of}. */
    String markdown() {
        return BenchMarkdown.of(this);
    }

    /**
     * Returns the report as one line of JSON: the setting, its origin, every row (the counterpart's figure under
     * "curator", whichever library it is), every floor, and each scenario's raw counts.
     */
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
                    "floor", number(row.floor()),
                    "target", row.target() == null ? null : row.target().toString(),
                    "met", row.target() == null ? null : row.isMet()));
        }
        List<Object> floors = new ArrayList<>();
        for (FloorRow row : floorRows()) {
            floors.add(Json.object(
                    "floor", row.floor(),
                    "scenario", row.scenario(),
                    "metric", row.metric(),
                    "value", number(row.value())));
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
                "setting",
                setting,
                "origin",
                origin,
                "load",
                Json.object(
                        "cores",
                        load.cores(),
                        "atStart",
                        number(load.atStart()),
                        "atEnd",
                        number(load.atEnd()),
                        "loaded",
                        load.isLoaded()),
                "rows",
                rows,
                "floors",
                floors,
                "scenarios",
                scenarios,
                "overlaps",
                overlaps()));
    }

    /** Returns "targets: 9 of 12 met" and a line for each row that missed its target, starting with {@code bullet}. */
    String targetSummary(String bullet) {
        List<BenchRow> targeted =
                rows().stream().filter(row -> row.target() != null).toList();
        List<String> missed = targeted.stream()
                .filter(row -> !row.isMet())
                .map(row -> row.group() + ", " + row.scenario() + ", " + row.metric() + ": "
                        + row.target().achievedBy(row) + " (target " + row.target() + ")")
                .toList();
        StringBuilder out = new StringBuilder(
                String.format("targets: %d of %d met", targeted.size() - missed.size(), targeted.size()));
        missed.forEach(miss -> out.append(System.lineSeparator()).append(bullet).append(miss));
        return out.toString();
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

    private static Object number(double value) {
        return Double.isNaN(value) ? null : Json.round(value, 4);
    }
}
