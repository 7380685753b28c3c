package dev.zklock.recipes.test.history;

import java.util.List;

/**
 * What {@link HoldStateChecker} found on one lock.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lock path
 * @param holds the holds checked
 * @param dishonest the holds whose holders claimed HELD when they should not have
 */
public record HoldStateResult(String key, int holds, List<DishonestHold> dishonest) {

    /**
     * Creates a result, copying the list.
     *
     * @param key the lock path
     * @param holds the holds checked
     * @param dishonest the holds whose holders claimed HELD when they should not have
     */
    public HoldStateResult {
        dishonest = List.copyOf(dishonest);
    }

    /**
     * Returns the longest a holder said HELD after its session was seen expired (target 0).
     *
     * @return the worst, in nanoseconds
     */
    public long maxHeldAfterExpiryNanos() {
        return dishonest.stream()
                .mapToLong(DishonestHold::heldAfterExpiryNanos)
                .max()
                .orElse(0);
    }
}
