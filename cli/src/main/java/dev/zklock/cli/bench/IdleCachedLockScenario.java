package dev.zklock.cli.bench;

import dev.zklock.cli.CommandFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * What a node kept cached costs another client: two clients, the first done with a lock that keeps its node after its
 * last release (keepIdle), the second acquiring it. Taken in turns, cycle by cycle, with a plain hand-off between the
 * same two clients on a path of its own, so that the two are compared in the same run:
 *
 * <ol>
 *   <li>cached: the first client acquires and releases its lock (zklock keeps the node cached; Curator's
 *       {@code InterProcessMutex} deletes it), waits {@link LockScenario#HAND_OFF_HOLD} so the cached node stands idle
 *       with its watch set, then the second client acquires the lock on the same path, timed from its call to its
 *       grant, and releases it;
 *   <li>plain hand-off: the first client holds a plain lock (a plain {@code ZkReentrantLock}, or an
 *       {@code InterProcessMutex}), the second queues behind it on a thread of its own, and after
 *       {@link LockScenario#HAND_OFF_HOLD} the first releases: timed from the start of the release to the second's
 *       acquisition, as every hand-off of the bench.
 * </ol>
 *
 * Requests and watch events are counted over cycles of the first kind of their own, both clients together. The raw floor
 * runs the same cycles with {@link RawQueueLock}s, the protocol with no lock code around it: the second client's create
 * and listing, its watch on the kept node, the first client's delete on its child event; against a delete and the
 * waiter's watch event. Its ratio is the least a cached node can cost another client, measured in the same run.
 */
final class IdleCachedLockScenario implements Scenario {
    static final String SECOND_ACQUIRE_P50 = "second client's acquire p50 (ms)";
    static final String PLAIN_HAND_OFF_P50 = "plain hand-off p50 (ms)";
    static final String VS_PLAIN_HAND_OFF = "second client's acquire p50 / plain hand-off p50";

    /** Cycles of the first kind in the counting window. */
    private static final int COUNTED_CYCLES = 20;

    /** How long the second client may wait: far longer than a watch event, a listing and a delete take. */
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Recipe cached;
    private final Recipe plain;
    private final Targets targets = new Targets();

    /**
     * @param cached the first client's lock on the cached path: zklock's keeps its node idle, Curator's does not
     * @param plain the second client's lock on that path, and both clients' locks in the plain hand-off
     */
    IdleCachedLockScenario(Recipe cached, Recipe plain) {
        this.cached = cached;
        this.plain = plain;
    }

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    IdleCachedLockScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return cached.title();
    }

    @Override
    public String name() {
        return "second client acquires an idle cached lock";
    }

    @Override
    public String key() {
        return cached.key() + "-second-client";
    }

    @Override
    public int contenders() {
        return 2;
    }

    @Override
    public List<Side> sides() {
        return List.of(Side.ZKLOCK, Side.CURATOR, Side.RAW);
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePaths(List.of(cachedPath(ensemble, side), plainPath(ensemble, side)));
        }
        ensemble.client(1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            measured.put(side, new Cycles(ensemble, side).run(duration));
        }
        return measured;
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        List<BenchRow> rows = new ArrayList<>(List.of(
                targets.row(this, measured, SECOND_ACQUIRE_P50, m -> m.acquireMillis(50)),
                targets.row(this, measured, "second client's acquire p99 (ms)", m -> m.acquireMillis(99)),
                targets.row(this, measured, PLAIN_HAND_OFF_P50, m -> m.handOffMillis(50)),
                targets.row(this, measured, VS_PLAIN_HAND_OFF, m -> m.acquireMillis(50) / m.handOffMillis(50))
                        .withFloor(floorRatio(measured.get(Side.RAW))),
                targets.row(this, measured, "requests per cycle, both clients", Measurement::requestsPerAcquisition),
                targets.row(this, measured, "watch events per cycle", Measurement::watchEventsPerRelease)));
        return rows;
    }

    /** The raw floor's rows: the same cycles with {@link RawQueueLock}s, the protocol with no lock code around it. */
    @Override
    public List<FloorRow> floorRows(Map<Side, Measurement> measured) {
        Measurement raw = measured.get(Side.RAW);
        if (raw == null) {
            return List.of();
        }
        String scenario = "second client takes an idle kept node";
        return List.of(
                new FloorRow(LockScenario.RAW_FLOOR, scenario, SECOND_ACQUIRE_P50, raw.acquireMillis(50)),
                new FloorRow(LockScenario.RAW_FLOOR, scenario, PLAIN_HAND_OFF_P50, raw.handOffMillis(50)),
                new FloorRow(LockScenario.RAW_FLOOR, scenario, VS_PLAIN_HAND_OFF, floorRatio(raw)),
                new FloorRow(
                        LockScenario.RAW_FLOOR,
                        scenario,
                        "requests per cycle, both clients",
                        raw.requestsPerAcquisition()));
    }

    /** Returns the raw floor's second acquire p50 over its plain hand-off p50, or NaN if it did not run. */
    private static double floorRatio(Measurement raw) {
        return raw == null ? Double.NaN : raw.acquireMillis(50) / raw.handOffMillis(50);
    }

    private String cachedPath(BenchEnsemble ensemble, Side side) {
        return path(ensemble, side) + "/cached";
    }

    private String plainPath(BenchEnsemble ensemble, Side side) {
        return path(ensemble, side) + "/plain";
    }

    /** One side's cycles, on the bench's thread and, for the second client's wait in a plain hand-off, one more. */
    private final class Cycles {
        final BenchEnsemble ensemble;
        final InterProcessLock firstCached;
        final InterProcessLock secondCached;
        final InterProcessLock firstPlain;
        final InterProcessLock secondPlain;
        final Histogram acquire = Measurement.histogram();
        final Histogram handOff = Measurement.histogram();
        long count;

        Cycles(BenchEnsemble ensemble, Side side) throws InterruptedException {
            this.ensemble = ensemble;
            if (side == Side.RAW) {
                firstCached = new RawQueueLock(ensemble.client(0), cachedPath(ensemble, side), true);
                secondCached = new RawQueueLock(ensemble.client(1), cachedPath(ensemble, side), false);
                firstPlain = new RawQueueLock(ensemble.client(0), plainPath(ensemble, side), false);
                secondPlain = new RawQueueLock(ensemble.client(1), plainPath(ensemble, side), false);
                return;
            }
            firstCached = cached.make(side, ensemble.client(0), cachedPath(ensemble, side));
            secondCached = plain.make(side, ensemble.client(1), cachedPath(ensemble, side));
            firstPlain = plain.make(side, ensemble.client(0), plainPath(ensemble, side));
            secondPlain = plain.make(side, ensemble.client(1), plainPath(ensemble, side));
        }

        Measurement run(Duration duration) throws Exception {
            ExecutorService second = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "bench-second-client");
                thread.setDaemon(true);
                return thread;
            });
            try {
                long start = System.nanoTime();
                long deadline = start + duration.toNanos();
                do {
                    acquire.recordValue(Math.min(cachedCycle(), Measurement.MAX_NANOS));
                    handOff.recordValue(Math.min(handOffCycle(second), Measurement.MAX_NANOS));
                    count++;
                } while (System.nanoTime() - deadline < 0);
                long elapsed = System.nanoTime() - start;
                Optional<ServerReadings> before = ensemble.counters();
                for (int i = 0; i < COUNTED_CYCLES; i++) {
                    cachedCycle();
                }
                ServerReadings.Window window = ServerReadings.Window.between(before, ensemble.counters());
                return new Measurement(
                        count,
                        0,
                        0,
                        elapsed,
                        acquire,
                        Measurement.histogram(),
                        handOff,
                        acquire,
                        Measurement.histogram(),
                        List.of(count),
                        COUNTED_CYCLES,
                        window.requests(),
                        window.watchEvents(),
                        0,
                        ParkCounts.NONE);
            } finally {
                second.shutdownNow();
            }
        }

        /** The first client leaves its node cached and idle; returns how long the second client's acquire took. */
        long cachedCycle() throws Exception {
            firstCached.acquire();
            firstCached.release();
            LockSupport.parkNanos(LockScenario.HAND_OFF_HOLD.toNanos());
            long asked = System.nanoTime();
            if (!secondCached.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new CommandFailure("the second client did not get " + cached.zklockName() + " from the first "
                        + "client's idle cached node within " + WAIT.toSeconds() + " s");
            }
            long acquired = System.nanoTime();
            secondCached.release();
            return acquired - asked;
        }

        /** The first client releases while the second waits; returns the time from the release to the acquisition. */
        long handOffCycle(ExecutorService second) throws Exception {
            firstPlain.acquire();
            Future<Long> acquired = second.submit(() -> {
                if (!secondPlain.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new CommandFailure("the second client did not get the plain lock within " + WAIT.toSeconds()
                            + " s of its hand-off");
                }
                long at = System.nanoTime();
                secondPlain.release();
                return at;
            });
            LockSupport.parkNanos(LockScenario.HAND_OFF_HOLD.toNanos());
            long releasing = System.nanoTime();
            firstPlain.release();
            try {
                return acquired.get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS) - releasing;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            } catch (TimeoutException e) {
                throw new CommandFailure(
                        "the second client's plain acquire did not return within " + WAIT.toSeconds() * 2 + " s");
            }
        }
    }
}
