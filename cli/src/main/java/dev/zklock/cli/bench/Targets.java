package dev.zklock.cli.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The targets of one scenario's rows, by metric, and the rows that carry them: a figure for zklock and for Curator from
 * what each side measured. Confined to the bench's thread.
 */
final class Targets {
    private final Map<String, Target> byMetric = new HashMap<>();

    /** Sets the target of the row named {@code metric}, replacing any set before. */
    void set(String metric, Target target) {
        byMetric.put(metric, target);
    }

    /**
     * Returns the row named {@code metric} of {@code scenario}: {@code figure} of zklock's and of Curator's
     * measurement, and the metric's target if one is set.
     */
    BenchRow row(
            Scenario scenario, Map<Side, Measurement> measured, String metric, ToDoubleFunction<Measurement> figure) {
        return new BenchRow(
                scenario.group(),
                scenario.name(),
                metric,
                figure.applyAsDouble(measured.get(Side.ZKLOCK)),
                figure.applyAsDouble(measured.get(Side.CURATOR)),
                byMetric.get(metric));
    }

    /** Returns the row named {@code metric} of {@code scenario} with the figures given, and the metric's target. */
    BenchRow row(Scenario scenario, String metric, double zklock, double curator) {
        return new BenchRow(scenario.group(), scenario.name(), metric, zklock, curator, byMetric.get(metric));
    }
}
