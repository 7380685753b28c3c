package dev.zklock.cli.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The report's table of one zklock mode against the default mode of the same recipe, both measured in the same run:
 * each row of a scenario named with the mode ({@code "32 clients, queue view"}) beside the row of the same recipe,
 * metric and scenario without it ({@code "32 clients"}), zklock's figures only, and their ratio. A row with no such
 * partner (the mode's rows ran alone, {@code --only}) is left out. Stateless; makes no ZooKeeper request.
 */
final class ModeTable {
    /** The header of the table: the mode's figure, the default mode's, and the ratio. */
    static final String HEADER = "| recipe | scenario | metric | %s | default mode | %s / default |";

    private ModeTable() {}

    /** One row of the table: the mode's row and its partner in the default mode. */
    record Pair(BenchRow mode, BenchRow plain) {
        /** The mode's figure over the default mode's, as every ratio of the report is taken. */
        double ratio() {
            return BenchRow.quotient(mode.metric(), mode.zklock(), plain.zklock());
        }
    }

    /** Returns the rows of {@code mode} (as scenarios name it, after a comma) that have a partner, in report order. */
    static List<Pair> pairs(List<BenchRow> rows, String mode) {
        String suffix = ", " + mode;
        List<Pair> pairs = new ArrayList<>();
        for (BenchRow row : rows) {
            if (!row.scenario().endsWith(suffix)) {
                continue;
            }
            String plainScenario = row.scenario().substring(0, row.scenario().length() - suffix.length());
            rows.stream()
                    .filter(other -> other.group().equals(row.group())
                            && other.scenario().equals(plainScenario)
                            && other.metric().equals(row.metric()))
                    .findFirst()
                    .ifPresent(plain -> pairs.add(new Pair(row, plain)));
        }
        return pairs;
    }

    /** Appends the table of {@code pairs} for {@code mode} to {@code out}, each line ended by {@code nl}. */
    static void append(List<Pair> pairs, String mode, StringBuilder out, String nl) {
        out.append(String.format(HEADER, mode, mode)).append(nl);
        out.append("| --- | --- | --- | ---: | ---: | ---: |").append(nl);
        String group = null;
        String scenario = null;
        for (Pair pair : pairs) {
            BenchRow row = pair.mode();
            boolean newGroup = !row.group().equals(group);
            out.append(String.format(
                    "| %s | %s | %s | %s | %s | %s |%s",
                    newGroup ? row.group() : "",
                    newGroup || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    BenchRow.shown(row.metric(), row.zklock()),
                    BenchRow.shown(row.metric(), pair.plain().zklock()),
                    BenchRow.shownRatio(pair.ratio()),
                    nl));
            group = row.group();
            scenario = row.scenario();
        }
    }
}
