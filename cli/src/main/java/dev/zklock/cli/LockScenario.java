package dev.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * The scenarios of a plain lock recipe: one contender alone (with the raw floor beside it), N contenders each on a
 * client (session) of its own, or N threads sharing one client and one lock object. Each contender loops
 * acquire/release with nothing done while holding.
 */
final class LockScenario implements Scenario {
    /** How the contenders of a scenario are laid out. */
    enum Layout {
        /** One contender, alone: the latency of an uncontended acquire. */
        UNCONTENDED,
        /** N contenders, each with its own client and lock object. */
        CLIENTS,
        /** N threads sharing one client and one lock object. */
        SHARED_LOCK,
        /**
         * Two contenders on clients of their own, each holding for {@link #HAND_OFF_HOLD}, so that the other already
         * watches when it releases: the hand-off alone, the only node ahead gone.
         */
        HAND_OFF
    }

    /** How long a holder keeps the lock in the hand-off scenario: far longer than a waiter takes to queue and watch. */
    static final Duration HAND_OFF_HOLD = Duration.ofMillis(2);

    static final String RAW_FLOOR = "raw floor (one create + one delete, raw ZooKeeper handle)";
    static final String ACQUIRE_P50 = "acquire p50 (ms)";
    static final String VS_RAW_CREATE = "acquire p50 / raw create p50";
    static final String CYCLES_PER_SECOND = "cycles/s";
    static final String ACQUISITIONS_PER_SECOND = "acquisitions/s";
    static final String HAND_OFF_P50 = "hand-off p50 (ms)";
    static final String REQUESTS_PER_ACQUISITION = "requests per acquisition";
    static final String WATCH_EVENTS_PER_RELEASE = "watch events per release";

    private final Recipe recipe;
    private final Layout layout;
    private final int contenders;
    private final List<Side> sides;
    private final Map<String, Target> targets = new HashMap<>();

    private LockScenario(Recipe recipe, Layout layout, int contenders, List<Side> sides) {
        this.recipe = recipe;
        this.layout = layout;
        this.contenders = contenders;
        this.sides = sides;
    }

    /** One contender alone; with {@code rawFloor}, the raw floor runs beside zklock and Curator. */
    static LockScenario uncontended(Recipe recipe, boolean rawFloor) {
        return new LockScenario(
                recipe,
                Layout.UNCONTENDED,
                1,
                rawFloor ? List.of(Side.ZKLOCK, Side.CURATOR, Side.RAW) : List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** {@code n} contenders, each on a client of its own. */
    static LockScenario clients(Recipe recipe, int n) {
        return new LockScenario(recipe, Layout.CLIENTS, n, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** Two contenders on clients of their own, each holding a little, so that the other waits: the hand-off alone. */
    static LockScenario handOff(Recipe recipe) {
        return new LockScenario(recipe, Layout.HAND_OFF, 2, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** {@code n} threads sharing one client and one lock object. */
    static LockScenario sharedLock(Recipe recipe, int n) {
        return new LockScenario(recipe, Layout.SHARED_LOCK, n, List.of(Side.ZKLOCK, Side.CURATOR));
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    LockScenario target(String metric, Target target) {
        targets.put(metric, target);
        return this;
    }

    @Override
    public String group() {
        return recipe.title();
    }

    @Override
    public String name() {
        return switch (layout) {
            case UNCONTENDED -> "uncontended";
            case CLIENTS -> contenders + " clients";
            case SHARED_LOCK -> contenders + " threads, 1 lock object";
            case HAND_OFF -> "hand-off, 2 clients holding " + HAND_OFF_HOLD.toMillis() + " ms";
        };
    }

    @Override
    public String key() {
        return recipe.key() + "-" + layout.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-" + contenders;
    }

    @Override
    public List<Side> sides() {
        return sides;
    }

    @Override
    public String series() {
        return switch (layout) {
            case UNCONTENDED, HAND_OFF -> "";
            case CLIENTS -> "separate clients";
            case SHARED_LOCK -> "threads sharing 1 lock object";
        };
    }

    @Override
    public int contenders() {
        return contenders;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides) {
            ensemble.makePath(path(ensemble, side));
        }
        ensemble.client(layout == Layout.SHARED_LOCK ? 0 : contenders - 1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        if (layout == Layout.UNCONTENDED) {
            Map<Side, InterProcessLock> locks = new EnumMap<>(Side.class);
            for (Side side : order) {
                locks.put(side, recipe.make(side, ensemble.client(0), path(ensemble, side)));
            }
            return AlternatingLoop.run(order, locks, duration.multipliedBy(order.size()), ensemble);
        }
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            String path = path(ensemble, side);
            List<InterProcessLock> locks = new ArrayList<>();
            if (layout != Layout.SHARED_LOCK) {
                for (int i = 0; i < contenders; i++) {
                    locks.add(recipe.make(side, ensemble.client(i), path));
                }
            } else {
                locks.addAll(Collections.nCopies(contenders, recipe.make(side, ensemble.client(0), path)));
            }
            Duration hold = layout == Layout.HAND_OFF ? HAND_OFF_HOLD : Duration.ZERO;
            measured.put(side, LockLoop.run(locks, duration, hold, ensemble));
        }
        return measured;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        Measurement zklock = measured.get(Side.ZKLOCK);
        Measurement curator = measured.get(Side.CURATOR);
        List<BenchRow> rows = new ArrayList<>();
        if (layout == Layout.UNCONTENDED) {
            rows.add(row(ACQUIRE_P50, zklock, curator, m -> m.acquireMillis(50)));
            rows.add(row("acquire p99 (ms)", zklock, curator, m -> m.acquireMillis(99)));
            rows.add(row("release p50 (ms)", zklock, curator, m -> m.releaseMillis(50)));
            Measurement raw = measured.get(Side.RAW);
            if (raw != null) {
                double create = raw.acquireMillis(50);
                rows.add(row(VS_RAW_CREATE, zklock, curator, m -> m.acquireMillis(50) / create));
            }
            rows.add(row(CYCLES_PER_SECOND, zklock, curator, Measurement::perSecond));
            rows.add(row("requests per cycle", zklock, curator, Measurement::requestsPerAcquisition));
            if (raw != null) {
                rows.addAll(rawFloorRows(raw));
            }
        } else {
            if (layout != Layout.HAND_OFF) {
                rows.add(row(ACQUISITIONS_PER_SECOND, zklock, curator, Measurement::perSecond));
            }
            rows.add(row(HAND_OFF_P50, zklock, curator, m -> m.handOffMillis(50)));
            rows.add(row("hand-off p99 (ms)", zklock, curator, m -> m.handOffMillis(99)));
            rows.add(row(REQUESTS_PER_ACQUISITION, zklock, curator, Measurement::requestsPerAcquisition));
            rows.add(row(WATCH_EVENTS_PER_RELEASE, zklock, curator, Measurement::watchEventsPerRelease));
        }
        return rows;
    }

    private BenchRow row(String metric, Measurement zklock, Measurement curator, ToDoubleFunction<Measurement> figure) {
        return new BenchRow(
                group(),
                name(),
                metric,
                figure.applyAsDouble(zklock),
                figure.applyAsDouble(curator),
                targets.get(metric));
    }

    private static List<BenchRow> rawFloorRows(Measurement raw) {
        String group = RAW_FLOOR;
        String scenario = "uncontended";
        return List.of(
                new BenchRow(group, scenario, "create p50 (ms)", raw.acquireMillis(50), Double.NaN, null),
                new BenchRow(group, scenario, "create p99 (ms)", raw.acquireMillis(99), Double.NaN, null),
                new BenchRow(group, scenario, "delete p50 (ms)", raw.releaseMillis(50), Double.NaN, null),
                new BenchRow(group, scenario, "cycles/s", raw.perSecond(), Double.NaN, null),
                new BenchRow(group, scenario, "requests per cycle", raw.requestsPerAcquisition(), Double.NaN, null));
    }

    private String path(BenchEnsemble ensemble, Side side) {
        return ensemble.basePath() + "/" + key() + "/" + side.name().toLowerCase(Locale.ROOT);
    }
}
