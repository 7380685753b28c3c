package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Measures uncontended locks of several sides on one thread, one acquire/release cycle of each side in turn (zklock,
 * Curator, raw floor, zklock, ...), so that whatever slows the machine for a moment slows every side alike; then counts
 * each side's requests in a short window of its own, over the sessions of the clients it is given (server-wide without
 * them: the pool's idle clients' pings would count too).
 */
final class AlternatingLoop {
    /** Cycles of one side in its counting window. */
    private static final int COUNTED_CYCLES = 100;

    private AlternatingLoop() {}

    /**
     * Runs the sides' locks in turn for {@code duration} in all, then counts each side's requests.
     *
     * @param order the sides in the order to run them
     * @param locks the lock of each side
     * @param duration the time of the alternating run, for all sides together
     * @param ensemble where the counters are read
     * @param counted the clients the locks run on, whose sessions' requests count; empty for the whole server's
     */
    static Map<Side, Measurement> run(
            List<Side> order,
            Map<Side, InterProcessLock> locks,
            Duration duration,
            BenchEnsemble ensemble,
            List<CuratorFramework> counted)
            throws Exception {
        Map<Side, Cycles> cycles = new EnumMap<>(Side.class);
        order.forEach(side -> cycles.put(side, new Cycles()));
        long deadline = System.nanoTime() + duration.toNanos();
        do {
            for (Side side : order) {
                cycles.get(side).cycle(locks.get(side));
            }
        } while (System.nanoTime() - deadline < 0);
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (Side side : order) {
            measured.put(side, cycles.get(side).measurement(locks.get(side), ensemble, counted));
        }
        return measured;
    }

    /** One side's cycles. */
    private static final class Cycles {
        final Histogram acquire = Measurement.histogram();
        final Histogram release = Measurement.histogram();
        long count;
        long nanos;

        void cycle(InterProcessLock lock) throws Exception {
            long start = System.nanoTime();
            lock.acquire();
            long acquired = System.nanoTime();
            lock.release();
            long end = System.nanoTime();
            acquire.recordValue(Math.min(acquired - start, Measurement.MAX_NANOS));
            release.recordValue(Math.min(end - acquired, Measurement.MAX_NANOS));
            count++;
            nanos += end - start;
        }

        /** Counts the side's requests over a window of its own and returns all it measured. */
        Measurement measurement(InterProcessLock lock, BenchEnsemble ensemble, List<CuratorFramework> counted)
                throws Exception {
            Optional<ServerReadings> before = ensemble.countersOf(counted);
            for (int i = 0; i < COUNTED_CYCLES; i++) {
                lock.acquire();
                lock.release();
            }
            ServerReadings.Window window = ServerReadings.Window.between(before, ensemble.countersOf(counted));
            return new Measurement(
                    count,
                    0,
                    0,
                    nanos,
                    acquire,
                    release,
                    Measurement.histogram(),
                    acquire,
                    Measurement.histogram(),
                    List.of(count),
                    COUNTED_CYCLES,
                    window.requests(),
                    window.watchEvents(),
                    0,
                    ParkCounts.NONE);
        }
    }
}
