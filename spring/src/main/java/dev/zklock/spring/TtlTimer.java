package dev.zklock.spring;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * The timer of a registry: the time to live of its holds and their renewals. One
 * daemon thread, started by the first task and gone after a second without one, and at once when the registry closes;
 * tasks run on it one at a time and never block. Safe for use by multiple threads.
 */
final class TtlTimer implements AutoCloseable {
    private static final long FALLBACK_SESSION_MS = 60_000;

    private final CuratorFramework client;
    private final ScheduledThreadPoolExecutor executor;

    TtlTimer(CuratorFramework client) {
        this.client = client;
        this.executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "zklock-spring-ttl");
            thread.setDaemon(true);
            return thread;
        });
        executor.setKeepAliveTime(1, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true);
    }

    /** Schedules {@code task}; returns null once the registry is closed, when holds keep no time to live. */
    ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return schedule(task, saturatedNanos(delay));
    }

    /** Schedules {@code task} in {@code delayNanos}; returns null once the registry is closed. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            return null;
        }
    }

    /** Returns {@code duration} in nanoseconds, {@link Long#MAX_VALUE} for one too long to say so. */
    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** Two thirds of the session timeout: the longest ZooKeeper's client waits for a reply. */
    long requestTimeoutNanos() {
        long sessionMs;
        try {
            sessionMs = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        } catch (Exception noSession) {
            sessionMs = FALLBACK_SESSION_MS;
        }
        return TimeUnit.MILLISECONDS.toNanos(sessionMs * 2 / 3);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
