package dev.zklock.spring;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * The timers of a registry's holds with a time to live: one daemon thread, started by the first such hold and gone
 * after a second without one, and at once when the registry closes. Safe for use by multiple threads.
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
        try {
            return executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            return null;
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
