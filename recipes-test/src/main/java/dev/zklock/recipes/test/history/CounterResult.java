package dev.zklock.recipes.test.history;

import java.util.OptionalLong;

/**
 * What {@link CounterChecker} found on one unfenced counter.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lock path that guards the counter
 * @param increments the increments that completed ({@code ok})
 * @param unknown the increments with no known outcome ({@code info}), which may have written
 * @param repeatedWrites the {@code ok} increments that wrote a value another {@code ok} increment had written: each an
 *     update lost to two holders reading the same value, seen in the history alone
 * @param finalValue the counter's value at the end, when known
 * @param lostUpdates the updates lost: {@code increments - finalValue} when the final value is known (never below 0;
 *     {@code info} increments that wrote can only hide losses), else {@code repeatedWrites}
 */
public record CounterResult(
        String key, int increments, int unknown, int repeatedWrites, OptionalLong finalValue, long lostUpdates) {}
