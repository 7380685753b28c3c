package dev.zklock.cli.bench;

import dev.zklock.cli.Json;
import java.util.List;
import java.util.Locale;

/**
 * One line of the bench report's main table: a figure for zklock and for its counterpart (Curator's recipe, or
 * Spring's registry), their ratio, and the target it should keep. Figures not measured are NaN. Immutable, and safe
 * for use by any thread.
 *
 * <p>A ratio is given only where it says something: both figures measured and neither shown as zero at the precision
 * the report prints ({@link #shown}). A quotient of 0 or by 0 (no watch event in a short run, 0.4 acquisitions/s
 * shown as "0") would read as a factor of thousands or of nothing; the two figures are shown instead, with "n/a".
 *
 * @param group the recipe pair, e.g. "ZkReentrantLock vs InterProcessMutex"
 * @param scenario e.g. "8 clients"
 * @param metric e.g. "acquisitions/s"
 * @param zklock zklock's figure
 * @param curator the counterpart's figure (Curator's recipe, or Spring Integration's registry)
 * @param target the bound from the issue, or null
 * @param floor the floor of the metric measured in the same run, with no lock library (the same figure as a row of
 *     the floors' table), against which a {@link Target#floorAtMost floor target} is evaluated; NaN if none
 */
record BenchRow(
        String group, String scenario, String metric, double zklock, double curator, Target target, double floor) {

    /** A row with no floor. */
    BenchRow(String group, String scenario, String metric, double zklock, double curator, Target target) {
        this(group, scenario, metric, zklock, curator, target, Double.NaN);
    }

    /** Returns this row with {@code floor}, the floor of its metric measured in the same run. */
    BenchRow withFloor(double floor) {
        return new BenchRow(group, scenario, metric, zklock, curator, target, floor);
    }

    /** Returns zklock's figure divided by the counterpart's, or NaN where either is not measured or shows as zero. */
    double ratio() {
        return quotient(metric, zklock, curator);
    }

    /** Returns zklock's figure divided by the floor's, or NaN where either is not measured or shows as zero. */
    double floorRatio() {
        return quotient(metric, zklock, floor);
    }

    /** Tells whether the row has a target and keeps it. */
    boolean isMet() {
        return target != null && target.isMet(this);
    }

    /**
     * Returns the row's cells as the report shows them: zklock's figure, the counterpart's, the ratio, and the target
     * followed by {@code met} or {@code missed} (blank where the row has none).
     */
    List<String> cells(String met, String missed) {
        return List.of(
                shown(metric, zklock),
                shown(metric, curator),
                shownRatio(ratio()),
                target == null ? "" : target.shownFor(this) + (isMet() ? met : missed));
    }

    /**
     * Returns {@code numerator / denominator}, or NaN if either is NaN or shows as zero in a row of {@code metric}: the
     * rule for every ratio the report prints.
     */
    static double quotient(String metric, double numerator, double denominator) {
        if (Double.isNaN(numerator) || Double.isNaN(denominator)) {
            return Double.NaN;
        }
        if (rounded(metric, numerator) == 0 || rounded(metric, denominator) == 0) {
            return Double.NaN;
        }
        return numerator / denominator;
    }

    /** Returns the decimals a figure of {@code metric} is shown with: 3 for milliseconds, 0 for rates, else 2. */
    static int decimals(String metric) {
        if (metric.endsWith("(ms)")) {
            return 3;
        }
        return metric.endsWith("/s") ? 0 : 2;
    }

    /** Returns {@code value} rounded as a figure of {@code metric} is shown. */
    static double rounded(String metric, double value) {
        return Json.round(value, decimals(metric));
    }

    /** Formats a figure as its metric needs: milliseconds with 3 decimals, rates whole, others with 2; NaN as n/a. */
    static String shown(String metric, double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%." + decimals(metric) + "f", value);
    }

    /** Formats a ratio with 2 decimals and an x; NaN as n/a. */
    static String shownRatio(double value) {
        return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, "%.2fx", value);
    }
}
