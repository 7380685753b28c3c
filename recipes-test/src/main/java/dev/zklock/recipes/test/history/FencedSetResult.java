package dev.zklock.recipes.test.history;

import java.util.List;

/**
 * What {@link FencedSetChecker} found in one fenced set.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lock path that guards the set
 * @param acknowledged the adds the store took ({@code ok})
 * @param refused the adds the store refused as late ({@code fail}): late writes fencing stopped
 * @param unknown the adds with no known outcome ({@code info}), which may or may not be in the set
 * @param hasFinalRead whether the history has a final {@code read-set} of the key
 * @param lost elements acknowledged but missing from the final read
 * @param duplicated elements the final read holds more than once
 * @param refusedButStored elements refused as late yet in the final read
 */
public record FencedSetResult(
        String key,
        int acknowledged,
        int refused,
        int unknown,
        boolean hasFinalRead,
        List<String> lost,
        List<String> duplicated,
        List<String> refusedButStored) {

    /**
     * Creates a result, copying the lists.
     *
     * @param key the lock path that guards the set
     * @param acknowledged the adds the store took ({@code ok})
     * @param refused the adds the store refused as late ({@code fail}): late writes fencing stopped
     * @param unknown the adds with no known outcome ({@code info}), which may or may not be in the set
     * @param hasFinalRead whether the history has a final {@code read-set} of the key
     * @param lost elements acknowledged but missing from the final read
     * @param duplicated elements the final read holds more than once
     * @param refusedButStored elements refused as late yet in the final read
     */
    public FencedSetResult {
        lost = List.copyOf(lost);
        duplicated = List.copyOf(duplicated);
        refusedButStored = List.copyOf(refusedButStored);
    }

    /**
     * Returns whether the set kept its promises: there is a final read, nothing acknowledged is missing, nothing is
     * there twice and nothing refused got in.
     *
     * @return whether the set is valid
     */
    public boolean isValid() {
        return hasFinalRead && lost.isEmpty() && duplicated.isEmpty() && refusedButStored.isEmpty();
    }
}
