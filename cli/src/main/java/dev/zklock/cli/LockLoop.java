package dev.zklock.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Runs contenders that loop acquire/release, each on a thread of its own, all started at once, for a time; and counts
 * what the servers saw meanwhile. Nothing is done while holding (the loop measures the lock alone), unless a hold time
 * is given: then each holder keeps the lock that long, so that the others are already waiting when it releases.
 *
 * <p>The counters are read after every contender is ready and before any starts, and again after the last one has
 * finished: every request in between belongs to the run (and to the pings of idle clients, a few per ten seconds).
 */
final class LockLoop {
    /** How long a contender may take to finish after the run's time is up before the bench gives up. */
    private static final Duration GRACE = Duration.ofSeconds(60);

    private final List<InterProcessLock> locks;
    private final BenchEnsemble ensemble;
    private final long holdNanos;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong overlaps = new AtomicLong();
    private final CountDownLatch ready;
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long deadline;
    private volatile long releasedAt;
    private volatile int releasedBy = -1;

    private LockLoop(List<InterProcessLock> locks, BenchEnsemble ensemble, Duration hold) {
        this.locks = locks;
        this.ensemble = ensemble;
        this.holdNanos = hold.toNanos();
        this.ready = new CountDownLatch(locks.size());
    }

    /**
     * Runs one contender per lock object (the same object may be given more than once, for threads that share it).
     *
     * @param locks the lock of each contender
     * @param duration how long the contenders loop; each finishes the cycle it is in
     * @param hold how long each holder keeps the lock before it releases; zero for not at all
     * @param ensemble where the counters are read
     */
    static Measurement run(List<InterProcessLock> locks, Duration duration, Duration hold, BenchEnsemble ensemble)
            throws Exception {
        return new LockLoop(locks, ensemble, hold).run(duration);
    }

    private Measurement run(Duration duration) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(locks.size(), runnable -> {
            Thread thread = new Thread(runnable, "bench-contender");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<Result>> results = new ArrayList<>();
            for (int i = 0; i < locks.size(); i++) {
                int contender = i;
                results.add(threads.submit(() -> loop(contender, locks.get(contender))));
            }
            ready.await();
            Optional<ServerReadings> before = ensemble.counters();
            long start = System.nanoTime();
            deadline = start + duration.toNanos();
            go.countDown();
            long acquisitions = 0;
            Histogram acquire = Measurement.histogram();
            Histogram release = Measurement.histogram();
            Histogram handOff = Measurement.histogram();
            for (Future<Result> future : results) {
                Result result = awaitResult(future, duration);
                acquisitions += result.acquisitions;
                acquire.add(result.acquire);
                release.add(result.release);
                handOff.add(result.handOff);
            }
            long elapsed = System.nanoTime() - start;
            ServerReadings.Window window = ServerReadings.Window.between(before, ensemble.counters());
            return new Measurement(
                    acquisitions,
                    elapsed,
                    acquire,
                    release,
                    handOff,
                    acquisitions,
                    window.requests(),
                    window.watchEvents(),
                    overlaps.get());
        } finally {
            threads.shutdownNow();
        }
    }

    private Result loop(int contender, InterProcessLock lock) throws Exception {
        Result result = new Result();
        ready.countDown();
        go.await();
        do {
            long asked = System.nanoTime();
            lock.acquire();
            long acquired = System.nanoTime();
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            result.acquire.recordValue(Math.min(acquired - asked, Measurement.MAX_NANOS));
            if (releasedBy >= 0 && releasedBy != contender) {
                result.handOff.recordValue(Math.min(acquired - releasedAt, Measurement.MAX_NANOS));
            }
            result.acquisitions++;
            if (holdNanos > 0) {
                LockSupport.parkNanos(holdNanos);
            }
            inside.decrementAndGet();
            long releasing = System.nanoTime();
            releasedAt = releasing;
            releasedBy = contender;
            lock.release();
            result.release.recordValue(Math.min(System.nanoTime() - releasing, Measurement.MAX_NANOS));
        } while (System.nanoTime() - deadline < 0);
        return result;
    }

    private static Result awaitResult(Future<Result> future, Duration duration) throws Exception {
        try {
            return future.get(duration.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new CommandFailure("a bench contender did not finish within " + GRACE.toSeconds()
                    + " s after its time was up: a lock never handed off");
        }
    }

    /** What one contender measured; confined to its thread until it returns. */
    private static final class Result {
        final Histogram acquire = Measurement.histogram();
        final Histogram release = Measurement.histogram();
        final Histogram handOff = Measurement.histogram();
        long acquisitions;
    }
}
