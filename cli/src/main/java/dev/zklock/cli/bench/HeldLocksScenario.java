package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Many locks held at once by one client, one per path: the heap each held lock costs the client, and each lock object
 * after its first acquire and release, {@code ZkReentrantLock} against {@code InterProcessMutex}. Each side of each measured round runs in a client JVM of its own
 * ({@link HeldLocksChild}) against the bench's servers, so the figure is the client's heap alone: the embedded server's
 * nodes and sessions live in the bench's JVM. Only the first {@link #MEASURED_ROUNDS} measured rounds start children
 * (each takes some seconds: three requests or more per lock, one lock after another on each of a few threads), and the
 * row shows their median; the warm-up round starts none, as a fresh JVM keeps nothing from it. A round shorter than a
 * second ({@code --quick}) holds a hundredth of the locks, at least 10. Confined to the bench's thread.
 */
final class HeldLocksScenario implements Scenario {
    static final String HEAP_PER_HELD_LOCK = "heap per held lock, client JVM alone (bytes)";
    static final String HEAP_PER_LOCK_OBJECT = "heap per lock object after its first use, client JVM alone (bytes)";

    /** The measured rounds that start children, the first ones: enough for a median, while the figure repeats. */
    static final int MEASURED_ROUNDS = 3;

    private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(10);
    private static final List<String> CHILD_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto");

    private final int locks;
    private final Targets targets = new Targets();
    private final Map<Side, List<Double>> heaps = new EnumMap<>(Side.class);
    private final Map<Side, List<Double>> objects = new EnumMap<>(Side.class);
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
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        int round = rounds++;
        if (round == 0 || round > MEASURED_ROUNDS) {
            return Map.of();
        }
        int count = duration.compareTo(Duration.ofSeconds(1)) >= 0 ? locks : Math.max(10, locks / 100);
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            long start = System.nanoTime();
            Map<String, String> said = BenchChild.runHolding(
                    HeldLocksChild.class,
                    CHILD_OPTIONS,
                    List.of(
                            side.name(),
                            ensemble.connectString().text(),
                            path(ensemble, side) + "/round-" + round,
                            String.valueOf(count)),
                    CHILD_TIMEOUT,
                    count);
            heaps.computeIfAbsent(side, s -> new ArrayList<>())
                    .add(Double.parseDouble(said.get(HeldLocksChild.HEAP_PER_HELD_LOCK)));
            objects.computeIfAbsent(side, s -> new ArrayList<>())
                    .add(Double.parseDouble(said.get(HeldLocksChild.HEAP_PER_LOCK_OBJECT)));
            measured.put(side, Measurement.counted(count, System.nanoTime() - start));
        }
        return measured;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(row(HEAP_PER_HELD_LOCK, heaps), row(HEAP_PER_LOCK_OBJECT, objects));
    }

    private BenchRow row(String metric, Map<Side, List<Double>> figures) {
        return targets.row(
                this,
                metric,
                Measurement.median(figures.getOrDefault(Side.ZKLOCK, List.of())),
                Measurement.median(figures.getOrDefault(Side.CURATOR, List.of())));
    }
}
