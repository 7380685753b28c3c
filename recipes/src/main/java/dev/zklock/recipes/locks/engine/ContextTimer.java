package dev.zklock.recipes.locks.engine;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread of one client's {@link ClientContext}: the deadlines of asynchronous acquisitions, the delayed
 * hand-offs of {@link ReleasesInFlight} and the idle sweeps of {@code KeyedLocks}. The thread starts with the
 * first task, ends after a few seconds with nothing scheduled, and ends at once when the client closes; a task given
 * after that is dropped. Safe for use by multiple threads; no ZooKeeper call.
 */
public final class ContextTimer implements TimerPort {
    private static final long IDLE_SECONDS = 5;

    private final String threadName;
    private ScheduledThreadPoolExecutor executor; // guarded by this; made on first use
    private boolean closed; // guarded by this

    public ContextTimer(String threadName) {
        this.threadName = threadName;
    }

    /** Reads {@link System#nanoTime()}, the clock of the timer's delays. */
    @Override
    public long read() {
        return System.nanoTime();
    }

    /**
     * Runs {@code task} on the timer thread after {@code delayNanos}; returns its future, or null if the client has
     * closed (the task never runs).
     */
    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        ScheduledThreadPoolExecutor timer = executor();
        if (timer == null) {
            return null;
        }
        try {
            return timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closedMeanwhile) {
            return null;
        }
    }

    /** Stops the thread at once; pending tasks never run. */
    public void close() {
        ScheduledThreadPoolExecutor timer;
        synchronized (this) {
            closed = true;
            timer = executor;
            executor = null;
        }
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    /** Returns the name of the timer thread, for logs and tests. */
    public String threadName() {
        return threadName;
    }

    /** Tells whether the timer thread exists now; for tests of the client's lifecycle. */
    public synchronized boolean isRunning() {
        return executor != null && executor.getPoolSize() > 0;
    }

    private synchronized ScheduledThreadPoolExecutor executor() {
        if (closed) {
            return null;
        }
        if (executor == null) {
            ScheduledThreadPoolExecutor made = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, threadName);
                thread.setDaemon(true);
                return thread;
            });
            // The last thread stays while a task is queued (ThreadPoolExecutor keeps one worker for a non-empty
            // queue), so a timeout shorter than a task's delay never strands it.
            made.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
            made.allowCoreThreadTimeOut(true);
            made.setRemoveOnCancelPolicy(true);
            executor = made;
        }
        return executor;
    }
}
