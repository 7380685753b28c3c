package dev.zklock.cli;

import java.util.Locale;

/**
 * A bound that a figure of the bench should keep, from the issue that set the targets: either the ratio of zklock's
 * figure to Curator's, or zklock's own figure.
 *
 * @param ofRatio true to bound the ratio zklock / Curator, false to bound zklock's figure itself
 * @param atMost true for "at most {@code bound}", false for "at least"
 * @param bound the bound
 */
record Target(boolean ofRatio, boolean atMost, double bound) {
    /** The ratio zklock / Curator is at most {@code bound}. */
    static Target ratioAtMost(double bound) {
        return new Target(true, true, bound);
    }

    /** The ratio zklock / Curator is at least {@code bound}. */
    static Target ratioAtLeast(double bound) {
        return new Target(true, false, bound);
    }

    /** zklock's figure is at most {@code bound}. */
    static Target atMost(double bound) {
        return new Target(false, true, bound);
    }

    /** Tells whether the row keeps the target; false if the figure it bounds is not known. */
    boolean isMet(BenchRow row) {
        double value = ofRatio ? row.ratio() : row.zklock();
        if (Double.isNaN(value)) {
            return false;
        }
        double rounded = Json.round(value, 2); // as the report shows it
        return atMost ? rounded <= bound : rounded >= bound;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s %s%s", atMost ? "<=" : ">=", trim(bound), ofRatio ? "x" : "");
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
