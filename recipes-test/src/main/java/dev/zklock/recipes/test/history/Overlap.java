package dev.zklock.recipes.test.history;

import java.util.Optional;

/**
 * Two holds of one lock by two processes, in conflicting modes, at once (for a semaphore: a hold granted while its
 * lease count was already taken, beside one of the holds then open): what a user of the lock sees as broken mutual
 * exclusion.
 *
 * <p>An overlap is <em>explained</em> when one holder could not have known better or was told: during the overlap
 * its client was paused longer than the session timeout (during the overlap, or while its acquire was in flight: a
 * grant decided just before the pause is recorded after it), or the observer saw its session end, or it reported its hold
 * IN_DOUBT or LOST before the other's grant, or a stranger deleted a lock node of the key after a point at which it may
 * have been granted and before the other may have been ({@link DeleteOrder}: each grant at any point of its acquire's
 * window, the lock free at it). Otherwise it is
 * <em>unexplained</em>: the lock granted two holders with nothing outside the library to blame.
 *
 * <p>Immutable and thread-safe.
 *
 * @param first the hold granted first
 * @param second the hold granted while {@code first} was open
 * @param from the nanos the overlap began (the second grant)
 * @param to the nanos it ended (the first release invoked by either)
 * @param explanation why it may happen, if anything explains it
 */
public record Overlap(Hold first, Hold second, long from, long to, Optional<String> explanation) {

    /**
     * Returns whether something outside the lock explains the overlap.
     *
     * @return whether {@link #explanation()} is present
     */
    public boolean isExplained() {
        return explanation.isPresent();
    }

    @Override
    public String toString() {
        return first + " and " + second + " on " + first.key()
                + explanation.map(e -> " (" + e + ")").orElse("");
    }
}
