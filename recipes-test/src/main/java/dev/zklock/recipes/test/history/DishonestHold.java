package dev.zklock.recipes.test.history;

import java.util.Optional;

/**
 * A hold whose holder claimed more than it had: it said HELD after the observer saw its session end, or another
 * client was granted the lock after the holder's connection was cut while the holder still said HELD, or the lock
 * granted it while its client's connection was suspended.
 *
 * <p>Immutable and thread-safe.
 *
 * @param hold the hold
 * @param heldAfterExpiryNanos how long the holder said HELD after its session was seen expired, its client's pauses
 *     excepted (a stopped JVM says nothing); 0 if it never did
 * @param grantedWhileHeld the other client's hold granted after the cut while this holder still said HELD, if any
 * @param grantedWhileSuspended whether the grant was decided while the holder's client had said its connection was
 *     suspended ({@link HoldStateChecker})
 */
public record DishonestHold(
        Hold hold, long heldAfterExpiryNanos, Optional<Hold> grantedWhileHeld, boolean grantedWhileSuspended) {}
