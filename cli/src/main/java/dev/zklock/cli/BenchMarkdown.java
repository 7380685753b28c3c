package dev.zklock.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * BENCHMARKS.md from a bench report: the setting, a warning first if the machine was loaded at the start, where the
 * figures came from, the main table of zklock against its
 * counterpart (each recipe and scenario named on its first row only), the table of floors and baselines measured
 * beside it, and the targets met and missed. The main table comes first, and its rows keep one shape, seven cells, so
 * that the README can copy rows of it whole ({@code DocsTest} matches them cell for cell). Stateless, and safe for use
 * by any thread.
 */
final class BenchMarkdown {
    /** The main table's header: the recipe cell names zklock's recipe and its counterpart ("X vs Y"). */
    static final String HEADER =
            "| recipe | scenario | metric | zklock | counterpart | zklock / counterpart | target |";

    /** The header of the table of floors and baselines: one figure each, no counterpart, no ratio, no target. */
    static final String FLOOR_HEADER = "| floor or baseline | scenario | metric | value |";

    private static final String NL = System.lineSeparator();

    private BenchMarkdown() {}

    /** Returns the report as Markdown. */
    static String of(BenchReport report) {
        StringBuilder out =
                new StringBuilder("_").append(report.setting()).append("_").append(NL);
        out.append(NL);
        List<String> bullets = new ArrayList<>();
        report.load().warning().ifPresent(warning -> bullets.add("**loaded machine**: " + warning));
        bullets.addAll(report.origin());
        bullets.forEach(line -> out.append("- ").append(line).append(NL));
        if (!bullets.isEmpty()) {
            out.append(NL);
        }
        mainTable(report.rows(), out);
        List<FloorRow> floors = report.floorRows();
        if (!floors.isEmpty()) {
            out.append(NL)
                    .append("Floors and baselines, measured in the same run:")
                    .append(NL)
                    .append(NL);
            floorTable(floors, out);
        }
        out.append(NL).append(report.targetSummary("- missed: "));
        return out.append(NL).toString();
    }

    private static void mainTable(List<BenchRow> rows, StringBuilder out) {
        out.append(HEADER).append(NL);
        out.append("| --- | --- | --- | ---: | ---: | ---: | --- |").append(NL);
        String group = null;
        String scenario = null;
        for (BenchRow row : rows) {
            boolean newGroup = !row.group().equals(group);
            out.append(String.format(
                    "| %s | %s | %s | %s |%n",
                    newGroup ? row.group() : "",
                    newGroup || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    String.join(" | ", row.cells(" met", " **missed**"))));
            group = row.group();
            scenario = row.scenario();
        }
    }

    private static void floorTable(List<FloorRow> rows, StringBuilder out) {
        out.append(FLOOR_HEADER).append(NL);
        out.append("| --- | --- | --- | ---: |").append(NL);
        String floor = null;
        String scenario = null;
        for (FloorRow row : rows) {
            boolean newFloor = !row.floor().equals(floor);
            out.append(String.format(
                    "| %s | %s | %s | %s |%n",
                    newFloor ? row.floor() : "",
                    newFloor || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    BenchRow.shown(row.metric(), row.value())));
            floor = row.floor();
            scenario = row.scenario();
        }
    }
}
