package dev.zklock.recipes.locks.engine;

import java.util.concurrent.Future;

/**
 * The engine's port to time for what runs with no thread waiting: a clock ({@link Ticker}) and a timer that runs a task
 * after a delay on that clock. The production adapter is the client's {@link ContextTimer} over
 * {@link System#nanoTime()}; the simulator's runs its tasks as events of its seed. A task must be quick and never block.
 * Implementations are safe for use by multiple threads; no ZooKeeper call.
 */
public interface TimerPort extends Ticker {
    /**
     * Runs {@code task} after {@code delayNanos} (at once for a delay of zero or less); returns its future, whose
     * {@code cancel} keeps it from running, or null if the timer is closed (the task never runs).
     */
    Future<?> schedule(Runnable task, long delayNanos);
}
