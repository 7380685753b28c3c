package dev.zklock.recipes.locks;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The timer that ends asynchronous acquisitions at their deadline. Safe for use by multiple threads. */
final class DeadlineTimer {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "zklock-async-deadlines");
        thread.setDaemon(true);
        return thread;
    });

    private DeadlineTimer() {}

    static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return TIMER.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
}
