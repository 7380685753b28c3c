package dev.zklock.recipes.locks;

import java.time.Duration;

/**
 * Hears what every lock of a client does, for metrics: registered with {@link LockMetrics#addListener}. Each method has
 * an empty default, so an implementation overrides what it counts.
 * {@link dev.zklock.recipes.locks.micrometer.MicrometerLockMetrics} is one, for users of Micrometer; this interface
 * needs nothing but zklock.
 *
 * <p>Called on the thread that acquires or releases, or on a notification thread for {@link #lost}; return quickly. An
 * exception thrown here is logged and does not disturb the lock. A re-entry of a reentrant lock is not an acquisition
 * and is not reported.
 *
 * @since 0.1.0
 */
public interface LockMetricsListener {
    /**
     * A lock was acquired.
     *
     * @param lockPath the lock path (for a multi-lock, its paths)
     * @param waited how long the acquire took, waiting included
     */
    default void acquired(String lockPath, Duration waited) {}

    /**
     * An acquire ran out of time, or a single try found the lock held.
     *
     * @param lockPath the lock path (for a multi-lock, its paths)
     * @param waited how long the acquire took
     */
    default void timedOut(String lockPath, Duration waited) {}

    /**
     * A lock was released.
     *
     * @param lockPath the lock path (for a multi-lock, its paths)
     * @param held how long it was held
     */
    default void released(String lockPath, Duration held) {}

    /**
     * A held lock was lost (its session ended, or its node was found gone).
     *
     * @param lockPath the lock path
     */
    default void lost(String lockPath) {}
}
