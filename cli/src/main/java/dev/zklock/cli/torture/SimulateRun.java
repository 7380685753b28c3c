package dev.zklock.cli.torture;

import dev.zklock.cli.Progress;
import dev.zklock.recipes.test.sim.SeedRun;
import dev.zklock.recipes.test.sim.SimReport;
import dev.zklock.recipes.test.sim.SimSettings;
import dev.zklock.recipes.test.sim.Simulation;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code zklock torture --simulate}: the deterministic simulator over a range of seeds, on every core (each seed is a
 * world of its own, so the seeds run in parallel and each one's outcome depends on its seed alone), with a progress bar
 * on stderr and a summary on stdout. At the first seed that breaks an invariant the run stops, shrinks that seed's plan
 * to the smallest that still fails, and prints it with its last events and the command that replays it. Confined to the
 * command's thread; the workers share only the counters.
 */
final class SimulateRun {
    private static final int BAR_STEPS = 100;

    private final long first;
    private final long count;
    private final int workers;
    private final SimSettings settings;
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong acquires = new AtomicLong();
    private final AtomicLong grants = new AtomicLong();
    private final AtomicReference<SimReport> failed = new AtomicReference<>();

    /**
     * @param first the first seed
     * @param count how many seeds, from {@code first} on
     * @param workers the threads that run seeds
     * @param queueViews whether the simulated clients keep queue views (one persistent watch per session and root)
     */
    SimulateRun(long first, long count, int workers, boolean queueViews) {
        this.first = first;
        this.count = count;
        this.workers = workers;
        this.settings = SimSettings.defaults().withQueueViews(queueViews);
    }

    /** Runs the seeds; returns 0 if every one was clean, 1 otherwise. */
    int run(PrintWriter out, PrintWriter err) throws InterruptedException {
        err.printf(
                "zklock torture --simulate: seeds %d to %d on %d thread(s)%s; no ZooKeeper, simulated time%n",
                first, first + count - 1, workers, settings.queueViews() ? ", queue views" : "");
        err.flush();
        long started = System.nanoTime();
        SeedRun seeds = new SeedRun(first, count, workers, settings, this::tally);
        Progress bar = new Progress(err, BAR_STEPS);
        int shown = 0;
        try {
            while (!seeds.await(250)) {
                shown = show(bar, seeds.done(), shown);
            }
        } catch (InterruptedException e) {
            seeds.stop();
            throw e;
        }
        show(bar, seeds.done(), shown);
        bar.finish();
        double seconds = (System.nanoTime() - started) / 1e9;
        SimReport failure = failed.get();
        if (failure != null) {
            err.printf(
                    "seed %d broke an invariant; shrinking its plan...%n",
                    failure.plan().seed());
            err.flush();
            failure = Simulation.shrink(failure, settings);
        }
        summary(out, seeds, seconds, failure);
        return failure == null && seeds.thrown().isEmpty() ? 0 : 1;
    }

    /** Counts a seed's report; the first that is not clean stops the run. */
    private boolean tally(SimReport report) {
        events.addAndGet(report.steps());
        acquires.addAndGet(report.acquires());
        grants.addAndGet(report.grants());
        if (report.isClean()) {
            return true;
        }
        failed.compareAndSet(null, report);
        return false;
    }

    private int show(Progress bar, long done, int shown) {
        int reached = (int) (done * BAR_STEPS / count);
        for (; shown < reached; shown++) {
            bar.stepDone();
        }
        bar.running(String.format(Locale.ROOT, "%,d of %,d seeds", done, count));
        return shown;
    }

    private void summary(PrintWriter out, SeedRun seeds, double seconds, SimReport failure) {
        out.printf(Locale.ROOT, "seeds             %,d (from %d)%n", seeds.done(), first);
        out.printf("queue views       %s%n", settings.queueViews() ? "on" : "off");
        out.printf(Locale.ROOT, "events            %,d%n", events.get());
        out.printf(Locale.ROOT, "acquires          %,d%n", acquires.get());
        out.printf(Locale.ROOT, "holds granted     %,d%n", grants.get());
        out.printf(
                Locale.ROOT,
                "time              %.1f s (%,.0f seeds/s on %d thread(s))%n",
                seconds,
                seeds.done() / Math.max(seconds, 1e-9),
                seeds.workers());
        SeedRun.Thrown crash = seeds.thrown().orElse(null);
        if (crash != null) {
            out.printf("verdict           THREW at seed %d: %s%n", crash.seed(), crash.thrown());
            out.printf(
                    "replay            zklock torture --simulate --seed %d --seeds 1%s%n",
                    crash.seed(), settings.queueViews() ? " --queue-views" : "");
            crash.thrown().printStackTrace(out);
        } else if (failure == null) {
            out.printf("violations        0%n");
            out.printf("verdict           clean%n");
        } else {
            out.printf("violations        %d%n", failure.violations().size());
            out.printf("verdict           VIOLATED%n");
            out.printf(
                    "replay            zklock torture --simulate --seed %d --seeds 1%s%n",
                    failure.plan().seed(), settings.queueViews() ? " --queue-views" : "");
            out.println(failure.describe());
        }
        out.flush();
    }
}
