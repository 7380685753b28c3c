package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One way of using a lock that the bench measures on zklock and on Curator, in the same run, round after round with
 * the order of the sides turning. To add a recipe whose shape is not a plain {@code InterProcessLock} (a
 * read/write lock, a multi-lock), implement this for it and add it to the {@link BenchPlan}.
 *
 * <p>An implementation runs one side at a time and reads the servers' counters around its measured window only; the
 * counters are server-wide, so nothing else may run meanwhile.
 */
interface Scenario {
    /** Returns the title of the group of rows this scenario belongs to, e.g. "ZkReentrantLock vs InterProcessMutex". */
    String group();

    /** Returns the scenario's name in the report, e.g. "8 clients". */
    String name();

    /** Returns a key unique in the run, usable in a ZooKeeper path and in JSON, e.g. "reentrant-clients-8". */
    String key();

    /** Returns the sides this scenario measures, zklock and Curator first; by default those two alone. */
    default List<Side> sides() {
        return List.of(Side.ZKLOCK, Side.CURATOR);
    }

    /**
     * Returns the series this scenario is a point of in the plot of acquisitions per second against contenders, e.g.
     * "separate clients", or empty if it is not plotted; by default empty.
     */
    default String series() {
        return "";
    }

    /** Returns the number of contenders: the x of its point in the plot. */
    int contenders();

    /**
     * Makes what the scenario needs before it is measured (paths, clients); not measured. By default the path of each
     * side ({@link #path}).
     */
    default void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePath(path(ensemble, side));
        }
    }

    /**
     * Runs one round: every side once, in the order given, for about {@code duration} each (one after the other, or
     * interleaved cycle by cycle where the scenario allows), and returns what each side measured.
     *
     * @param ensemble the servers, clients and counters
     * @param order the sides in this round's order
     * @param duration the time of each side
     */
    Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception;

    /** Returns the report's rows for this scenario from what every side measured over all rounds. */
    List<BenchRow> rows(Map<Side, Measurement> measured);

    /**
     * Returns the rows of the floors and baselines this scenario measured beside zklock and its counterpart (the raw
     * floor, a bare ZooKeeper queue, the JDK's fair lock), from what every side measured over all rounds; by default
     * none.
     */
    default List<FloorRow> floorRows(Map<Side, Measurement> measured) {
        return List.of();
    }

    /** Returns the path under which the locks of {@code side} live in this scenario: one per scenario and side. */
    default String path(BenchEnsemble ensemble, Side side) {
        return ensemble.basePath() + "/" + key() + "/" + side.name().toLowerCase(Locale.ROOT);
    }
}
