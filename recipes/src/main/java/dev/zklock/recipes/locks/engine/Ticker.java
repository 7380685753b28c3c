package dev.zklock.recipes.locks.engine;

/**
 * The engine's clock: a source of nanoseconds for deadlines and intervals, as {@link System#nanoTime()}, with no
 * relation to wall-clock time. Production reads {@link #SYSTEM}; the simulator reads its seed's clock, so that a
 * deadline passes in simulated time. Implementations are safe for use by multiple threads.
 */
@FunctionalInterface
public interface Ticker {
    /** The system's clock, {@link System#nanoTime()}. */
    Ticker SYSTEM = System::nanoTime;

    /** Returns the current time in nanoseconds, from an arbitrary origin; only differences mean anything. */
    long read();
}
