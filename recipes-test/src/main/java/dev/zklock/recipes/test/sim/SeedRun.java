package dev.zklock.recipes.test.sim;

import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A range of seeds run on several threads: each seed is a world of its own ({@link Simulation#run}), whose outcome
 * depends on its seed alone, so the seeds run in parallel and a seed replays the same on any thread. Each report goes
 * to a callback on the thread that ran it; the run stops at the first seed whose callback says stop, or whose run or
 * callback throws. Used by {@code zklock torture --simulate} (which polls {@link #done()} for its progress bar) and by
 * {@code SimulationTest} ({@link #runAll}, which throws the first failure). Safe for use by multiple threads: the
 * workers share only the counters; no ZooKeeper.
 */
public final class SeedRun {
    /** A seed whose run, or whose report's callback, threw. */
    public record Thrown(long seed, Throwable thrown) {}

    private final long first;
    private final long count;
    private final SimSettings settings;
    private final Predicate<SimReport> each;
    private final ExecutorService pool;
    private final int workers;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicReference<Thrown> thrown = new AtomicReference<>();
    private volatile boolean stopped;

    /**
     * Starts the run at once.
     *
     * @param first the first seed
     * @param count how many seeds from {@code first} on
     * @param workers the threads that run seeds (at most {@code count} are started)
     * @param settings the worlds' settings
     * @param each told each report on the thread that ran it; returns whether the run goes on
     */
    public SeedRun(long first, long count, int workers, SimSettings settings, Predicate<SimReport> each) {
        if (count < 0 || workers < 1) {
            throw new IllegalArgumentException("seeds " + count + " on " + workers + " thread(s): need >= 0 and >= 1");
        }
        this.first = first;
        this.count = count;
        this.settings = settings;
        this.each = each;
        this.workers = (int) Math.max(1, Math.min(workers, count));
        this.pool = Executors.newFixedThreadPool(this.workers, runnable -> {
            Thread thread = new Thread(runnable, "zklock-simulate");
            thread.setDaemon(true);
            return thread;
        });
        for (int i = 0; i < this.workers; i++) {
            pool.execute(this::work);
        }
        pool.shutdown();
    }

    /**
     * Runs the seeds on every processor, each report to {@code each}, and returns once all ran; the first throw of a run
     * or of {@code each} stops the others and is thrown here.
     */
    public static void runAll(long first, long count, SimSettings settings, Predicate<SimReport> each) {
        SeedRun run = new SeedRun(first, count, Runtime.getRuntime().availableProcessors(), settings, each);
        try {
            run.await();
        } catch (InterruptedException e) {
            run.stop();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the seeds ran", e);
        }
        Optional<Thrown> failure = run.thrown();
        if (failure.isPresent()) {
            Throwable cause = failure.get().thrown();
            if (cause instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("seed " + failure.get().seed(), cause);
        }
    }

    /** The threads that run seeds. */
    public int workers() {
        return workers;
    }

    /** The seeds whose report was handed on so far. */
    public long done() {
        return done.get();
    }

    /** The first seed that threw, if one did. */
    public Optional<Thrown> thrown() {
        return Optional.ofNullable(thrown.get());
    }

    /** Waits until every worker ended; returns whether they did within {@code millis}. */
    public boolean await(long millis) throws InterruptedException {
        return pool.awaitTermination(millis, TimeUnit.MILLISECONDS);
    }

    /** Waits until every worker ended. */
    public void await() throws InterruptedException {
        await(Long.MAX_VALUE);
    }

    /** Runs no more seeds; the ones running end. */
    public void stop() {
        stopped = true;
    }

    private void work() {
        while (!stopped) {
            long index = next.getAndIncrement();
            if (index >= count) {
                return;
            }
            long seed = first + index;
            try {
                boolean goOn = each.test(Simulation.run(seed, settings));
                done.incrementAndGet();
                if (!goOn) {
                    stopped = true;
                }
            } catch (RuntimeException | Error e) {
                thrown.compareAndSet(null, new Thrown(seed, e));
                stopped = true;
                return;
            }
        }
    }
}
