package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Virtual threads that each take one {@code ZkReentrantLock} once (a plain lock object, or one with local hand-off), in
 * a JVM that has never run a lock, and the {@code jdk.VirtualThreadPinned} events whose stacks have a frame of the
 * library: first use included, so each
 * measurement is a fresh child JVM ({@link PinnedChild}) against the bench's servers. Curator's
 * {@code InterProcessMutex} beside it at a smaller count, named in the scenario (each of its releases wakes every
 * waiter of the lock object, and its run of 1,000 virtual threads took minutes). Only the first measured round starts
 * the children (a child of 100,000 threads takes a minute or more, and a fresh JVM keeps nothing from a warm-up); the
 * rows count its events. A round shorter than a second ({@code --quick}) runs a hundredth of the threads, at least 10.
 * Needs virtual threads (release 21); {@link BenchPlan} leaves it out before. Confined to the bench's thread.
 */
final class PinnedScenario implements Scenario {
    static final String PINNED_IN_LIBRARY = "VirtualThreadPinned events in the library's frames";
    static final String PINNED = "VirtualThreadPinned events, any frame";

    private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(15);
    private static final List<String> CHILD_OPTIONS =
            List.of("-Xmx2g", "-XX:FlightRecorderOptions:stackdepth=256", "-Xshare:auto");

    private final int threads;
    private final boolean localHandOff;
    private final int curatorThreads;
    private final Targets targets = new Targets();
    private final Map<Side, Map<String, String>> said = new EnumMap<>(Side.class);
    private int rounds; // round() calls, the warm-up first

    private PinnedScenario(int threads, boolean localHandOff, int curatorThreads) {
        if (threads < 1 || curatorThreads < 1) {
            throw new IllegalArgumentException(
                    "threads must be 1 or more, not " + threads + " (zklock) and " + curatorThreads + " (Curator)");
        }
        this.threads = threads;
        this.localHandOff = localHandOff;
        this.curatorThreads = curatorThreads;
    }

    /** {@code threads} virtual threads on one plain zklock lock object, {@code curatorThreads} on Curator's. */
    static PinnedScenario plain(int threads, int curatorThreads) {
        return new PinnedScenario(threads, false, curatorThreads);
    }

    /**
     * {@code threads} virtual threads on one zklock lock object with local hand-off, {@code curatorThreads} on
     * Curator's.
     */
    static PinnedScenario localHandOff(int threads, int curatorThreads) {
        return new PinnedScenario(threads, true, curatorThreads);
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    PinnedScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return VirtualThreadScenario.GROUP;
    }

    @Override
    public String name() {
        return String.format(
                Locale.ROOT,
                "%,d virtual threads, 1 lock object%s, first use in a fresh JVM (Curator: %,d)",
                threads,
                localHandOff ? ", local hand-off" : "",
                curatorThreads);
    }

    @Override
    public String key() {
        return "virtual-threads-pinned-" + (localHandOff ? "local-hand-off-" : "") + threads;
    }

    @Override
    public int contenders() {
        return threads;
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        int round = rounds++;
        if (round != 1) {
            return Map.of();
        }
        boolean full = duration.compareTo(Duration.ofSeconds(1)) >= 0;
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            int count = side == Side.ZKLOCK ? threads : curatorThreads;
            count = full ? count : Math.max(10, count / 100);
            long start = System.nanoTime();
            Map<String, String> figures = BenchChild.runHolding(
                    PinnedChild.class,
                    CHILD_OPTIONS,
                    List.of(
                            side.name(),
                            ensemble.connectString().text(),
                            path(ensemble, side) + "/lock",
                            String.valueOf(count),
                            String.valueOf(localHandOff)),
                    CHILD_TIMEOUT,
                    count);
            said.put(side, figures);
            measured.put(side, Measurement.counted(count, System.nanoTime() - start));
        }
        return measured;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(
                targets.row(
                        this,
                        PINNED_IN_LIBRARY,
                        figure(Side.ZKLOCK, PinnedChild.PINNED_IN_LIBRARY),
                        figure(Side.CURATOR, PinnedChild.PINNED_IN_LIBRARY)),
                targets.row(
                        this,
                        PINNED,
                        figure(Side.ZKLOCK, PinnedChild.PINNED),
                        figure(Side.CURATOR, PinnedChild.PINNED)));
    }

    /** Returns the figure {@code name} that {@code side}'s child said, or NaN if it did not run. */
    private double figure(Side side, String name) {
        String value = said.getOrDefault(side, Map.of()).get(name);
        return value == null ? Double.NaN : Double.parseDouble(value);
    }
}
