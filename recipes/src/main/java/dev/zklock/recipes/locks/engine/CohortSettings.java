package dev.zklock.recipes.locks.engine;

import java.time.Duration;

/**
 * How a lock's local hand-off is bounded, and how long it keeps an idle node: the settings a builder gives a
 * {@link Cohort}. Immutable.
 *
 * @param maxPasses the most local passes in a row once another waiter is known behind the cohort's node
 * @param maxTimeNanos the longest the node passes locally once another waiter is known
 * @param keepIdleNanos how long the node is kept after the last local release while no other waiter is known; zero
 *     releases it at once
 */
public record CohortSettings(int maxPasses, long maxTimeNanos, long keepIdleNanos) {
    /** The documented default pass bound. */
    public static final int DEFAULT_MAX_PASSES = 64;

    /** The documented default time bound. */
    public static final Duration DEFAULT_MAX_TIME = Duration.ofMillis(5);
}
