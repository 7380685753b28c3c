package dev.zklock.cli.bench;

import dev.zklock.cli.bench.HeldLocksChild.Holder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Many locks held at once by one client, one per path: the heap each held lock costs the client, and each lock object
 * after its first acquire and release, {@code ZkReentrantLock} against {@code InterProcessMutex}. Each side of each
 * measured round runs in a client JVM of its own ({@link HeldLocksChild}) against the bench's servers, so the figure is
 * the client's heap alone: the embedded server's nodes and sessions live in the bench's JVM. After the sides, each
 * measured round runs the floor of the heap per held lock the same way ({@link #WATCHED_FLOOR}): Curator's mutex with
 * one data watch on each held node ({@link WatchedMutex}), the least a lock can keep that watches its held node, as
 * zklock's holds do to learn of a stranger's delete; it is shown among the floors, with its heap per lock object beside
 * it (the watch is gone once the release deletes the node, so an object keeps what Curator's does). Only the first
 * {@link #MEASURED_ROUNDS} measured rounds start children (each takes some seconds: three requests or more per lock, one
 * lock after another on each of a few threads), and the rows show their median; the warm-up round starts none, as a
 * fresh JVM keeps nothing from it. A round shorter than a second ({@code --quick}) holds a hundredth of the locks, at
 * least 10. Confined to the bench's thread.
 */
final class HeldLocksScenario implements Scenario {
    static final String HEAP_PER_HELD_LOCK = "heap per held lock, client JVM alone (bytes)";
    static final String HEAP_PER_LOCK_OBJECT = "heap per lock object after its first use, client JVM alone (bytes)";
    static final String WATCHED_FLOOR =
            "watched floor (InterProcessMutex + one exists watch on its held node, raw ZooKeeper handle)";

    /** The measured rounds that start children, the first ones: enough for a median, while the figure repeats. */
    static final int MEASURED_ROUNDS = 3;

    private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(10);
    private static final List<String> CHILD_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto");

    private final int locks;
    private final Targets targets = new Targets();
    private final Map<Holder, List<Double>> heaps = new EnumMap<>(Holder.class);
    private final Map<Holder, List<Double>> objects = new EnumMap<>(Holder.class);
    private int rounds; // round() calls, the warm-up first

    private HeldLocksScenario(int locks) {
        if (locks < 10) {
            throw new IllegalArgumentException("held locks must be 10 or more, not " + locks);
        }
        this.locks = locks;
    }

    /** {@code locks} locks held at once by one client, one per path. */
    static HeldLocksScenario of(int locks) {
        return new HeldLocksScenario(locks);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    HeldLocksScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return Recipe.reentrant().title();
    }

    @Override
    public String name() {
        return String.format(Locale.ROOT, "%,d locks held by one client, one per path", locks);
    }

    @Override
    public String key() {
        return "reentrant-held-" + locks;
    }

    @Override
    public int contenders() {
        return 1;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        Scenario.super.prepare(ensemble);
        ensemble.makePath(floorPath(ensemble));
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        int round = rounds++;
        if (round == 0 || round > MEASURED_ROUNDS) {
            return Map.of();
        }
        int count = duration.compareTo(Duration.ofSeconds(1)) >= 0 ? locks : Math.max(10, locks / 100);
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            long start = System.nanoTime();
            hold(ensemble, Holder.of(side), path(ensemble, side) + "/round-" + round, count);
            measured.put(side, Measurement.counted(count, System.nanoTime() - start));
        }
        hold(ensemble, Holder.WATCHED_CURATOR, floorPath(ensemble) + "/round-" + round, count);
        return measured;
    }

    /** Has a child JVM hold {@code count} locks of {@code holder} under {@code base}, and keeps what it said. */
    private void hold(BenchEnsemble ensemble, Holder holder, String base, int count) throws Exception {
        Map<String, String> said = BenchChild.runHolding(
                HeldLocksChild.class,
                CHILD_OPTIONS,
                List.of(holder.name(), ensemble.connectString().text(), base, String.valueOf(count)),
                CHILD_TIMEOUT,
                count);
        heaps.computeIfAbsent(holder, h -> new ArrayList<>())
                .add(Double.parseDouble(said.get(HeldLocksChild.HEAP_PER_HELD_LOCK)));
        objects.computeIfAbsent(holder, h -> new ArrayList<>())
                .add(Double.parseDouble(said.get(HeldLocksChild.HEAP_PER_LOCK_OBJECT)));
    }

    /**
     * The rows of both figures; the heap per held lock with its floor ({@link #WATCHED_FLOOR}), against which a {@link
     * Target#floorAtMost floor target} is kept. The heap per lock object has none: the floor's objects keep what
     * Curator's keep.
     */
    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(
                row(HEAP_PER_HELD_LOCK, heaps).withFloor(median(heaps, Holder.WATCHED_CURATOR)),
                row(HEAP_PER_LOCK_OBJECT, objects));
    }

    /** The floor's two figures: its heap per held lock, and per lock object. */
    @Override
    public List<FloorRow> floorRows(Map<Side, Measurement> measured) {
        return List.of(
                new FloorRow(WATCHED_FLOOR, name(), HEAP_PER_HELD_LOCK, median(heaps, Holder.WATCHED_CURATOR)),
                new FloorRow(WATCHED_FLOOR, name(), HEAP_PER_LOCK_OBJECT, median(objects, Holder.WATCHED_CURATOR)));
    }

    private BenchRow row(String metric, Map<Holder, List<Double>> figures) {
        return targets.row(this, metric, median(figures, Holder.ZKLOCK), median(figures, Holder.CURATOR));
    }

    /** The median of {@code holder}'s figures; NaN if it has none. */
    private static double median(Map<Holder, List<Double>> figures, Holder holder) {
        return Measurement.median(figures.getOrDefault(holder, List.of()));
    }

    /**
     * The path under which the floor's locks live: as long as Curator's ({@link #path}), as every lock keeps its path
     * and its node's, and 8 characters more would add 8 bytes to each held node's path and 16 to each lock object.
     */
    private String floorPath(BenchEnsemble ensemble) {
        String floor = ensemble.basePath() + "/" + key() + "/watched";
        if (floor.length() != path(ensemble, Side.CURATOR).length()) {
            throw new AssertionError("the floor's path '" + floor + "' is not as long as Curator's");
        }
        return floor;
    }
}
