package dev.zklock.cli;

import java.util.Locale;

/**
 * A bound that a figure of the bench should keep, from the issue that set the targets: either the ratio of zklock's
 * figure to Curator's, or zklock's own figure, at least a low bound, at most a high bound, or between both.
 *
 * @param ofRatio true to bound the ratio zklock / Curator, false to bound zklock's figure itself
 * @param low the least the figure may be; negative infinity for no low bound
 * @param high the most the figure may be; positive infinity for no high bound
 */
record Target(boolean ofRatio, double low, double high) {
    /** The ratio zklock / Curator is at most {@code bound}. */
    static Target ratioAtMost(double bound) {
        return new Target(true, Double.NEGATIVE_INFINITY, bound);
    }

    /** The ratio zklock / Curator is at least {@code bound}. */
    static Target ratioAtLeast(double bound) {
        return new Target(true, bound, Double.POSITIVE_INFINITY);
    }

    /** zklock's figure is at most {@code bound}. */
    static Target atMost(double bound) {
        return new Target(false, Double.NEGATIVE_INFINITY, bound);
    }

    /** zklock's figure is at least {@code bound}. */
    static Target atLeast(double bound) {
        return new Target(false, bound, Double.POSITIVE_INFINITY);
    }

    /** zklock's figure is at least {@code low} and at most {@code high}. */
    static Target between(double low, double high) {
        return new Target(false, low, high);
    }

    /** Tells whether the row keeps the target; false if the figure it bounds is not known. */
    boolean isMet(BenchRow row) {
        double value = ofRatio ? row.ratio() : row.zklock();
        if (Double.isNaN(value)) {
            return false;
        }
        // As the report shows it: ratios with 2 decimals, figures as their metric is shown (BenchRow.shown).
        double rounded = ofRatio ? Json.round(value, 2) : BenchRow.rounded(row.metric(), value);
        return rounded >= low && rounded <= high;
    }

    @Override
    public String toString() {
        String unit = ofRatio ? "x" : "";
        if (low == Double.NEGATIVE_INFINITY) {
            return String.format(Locale.ROOT, "<= %s%s", trim(high), unit);
        }
        if (high == Double.POSITIVE_INFINITY) {
            return String.format(Locale.ROOT, ">= %s%s", trim(low), unit);
        }
        return String.format(Locale.ROOT, "%s%s to %s%s", trim(low), unit, trim(high), unit);
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
