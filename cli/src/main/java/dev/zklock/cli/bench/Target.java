package dev.zklock.cli.bench;

import dev.zklock.cli.Json;
import java.util.Locale;

/**
 * A bound that a figure of the bench should keep, from the issue that set the targets: on the ratio of zklock's figure
 * to its counterpart's, on zklock's own figure, or on zklock's figure over the floor of the same metric measured in the
 * same run; at least a low bound, at most a high bound, or between both. Ratios are compared with 2 decimals, figures
 * as the report shows them ({@link BenchRow#shown}), so that a row reads met exactly when its printed figure keeps the
 * printed bound; a figure or floor not measured (n/a) misses. Immutable, and safe for use by any thread.
 *
 * @param basis what the bounds apply to
 * @param low the least the figure may be; negative infinity for no low bound
 * @param high the most the figure may be; positive infinity for no high bound
 */
record Target(Basis basis, double low, double high) {
    /** What a target bounds. */
    enum Basis {
        /** zklock's figure itself: {@code <= 5}, {@code >= 500}, {@code 35 to 65}. */
        VALUE,
        /** The ratio zklock / counterpart, the row's ratio column: {@code >= 1.2x}, {@code <= 0.8x}. */
        RATIO,
        /**
         * zklock's figure over the floor of its metric measured in the same run ({@link BenchRow#floor}): for a bound
         * that no lock can beat by much, which a fixed number set below the floor could never be met.
         */
        FLOOR
    }

    /** The ratio zklock / counterpart is at most {@code bound}. */
    static Target ratioAtMost(double bound) {
        return new Target(Basis.RATIO, Double.NEGATIVE_INFINITY, bound);
    }

    /** The ratio zklock / counterpart is at least {@code bound}. */
    static Target ratioAtLeast(double bound) {
        return new Target(Basis.RATIO, bound, Double.POSITIVE_INFINITY);
    }

    /** zklock's figure is at most {@code bound}. */
    static Target atMost(double bound) {
        return new Target(Basis.VALUE, Double.NEGATIVE_INFINITY, bound);
    }

    /** zklock's figure is at least {@code bound}. */
    static Target atLeast(double bound) {
        return new Target(Basis.VALUE, bound, Double.POSITIVE_INFINITY);
    }

    /** zklock's figure is at least {@code low} and at most {@code high}. */
    static Target between(double low, double high) {
        return new Target(Basis.VALUE, low, high);
    }

    /** zklock's figure is at most {@code factor} times the floor of its metric measured in the same run. */
    static Target floorAtMost(double factor) {
        return new Target(Basis.FLOOR, Double.NEGATIVE_INFINITY, factor);
    }

    /** zklock's figure is at least {@code factor} times the floor of its metric measured in the same run (a rate). */
    static Target floorAtLeast(double factor) {
        return new Target(Basis.FLOOR, factor, Double.POSITIVE_INFINITY);
    }

    /** Tells whether this target bounds the ratio zklock / counterpart. */
    boolean ofRatio() {
        return basis == Basis.RATIO;
    }

    /** Tells whether the row keeps the target; false if the figure it bounds is not known. */
    boolean isMet(BenchRow row) {
        double value =
                switch (basis) {
                    case VALUE -> row.zklock();
                    case RATIO -> row.ratio();
                    case FLOOR -> row.floorRatio();
                };
        if (Double.isNaN(value)) {
            return false;
        }
        double rounded = basis == Basis.VALUE ? BenchRow.rounded(row.metric(), value) : Json.round(value, 2);
        return rounded >= low && rounded <= high;
    }

    /**
     * Returns the target as the row's target cell shows it: as {@link #toString}, and for a bound on the floor, the
     * floor measured ("<= 1.1x floor of 2308.00").
     */
    String shownFor(BenchRow row) {
        return basis == Basis.FLOOR ? this + " of " + BenchRow.shown(row.metric(), row.floor()) : toString();
    }

    /**
     * Returns what the target bounds in {@code row}, as the list of missed targets names it: the ratio, the figure, or
     * the figure and its ratio to the floor ("3254.00, 1.41x the floor of 2308.00").
     */
    String achievedBy(BenchRow row) {
        return switch (basis) {
            case VALUE -> BenchRow.shown(row.metric(), row.zklock());
            case RATIO -> BenchRow.shownRatio(row.ratio());
            case FLOOR -> BenchRow.shown(row.metric(), row.zklock()) + ", " + BenchRow.shownRatio(row.floorRatio())
                    + " the floor of " + BenchRow.shown(row.metric(), row.floor());
        };
    }

    @Override
    public String toString() {
        String unit =
                switch (basis) {
                    case VALUE -> "";
                    case RATIO -> "x";
                    case FLOOR -> "x floor";
                };
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
