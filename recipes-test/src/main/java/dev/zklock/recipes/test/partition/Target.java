package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.LockStateListener;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One lock object as one worker thread drives it: a timed acquire that says what is held. Thread safety is the lock's;
 * the workload gives each target to one thread (two targets may share a lock object, as the reader and the writer of a
 * read/write lock, or the two threads of a cohort lock, do).
 */
interface Target {
    /**
     * Acquires within {@code timeout}.
     *
     * @return the hold, or empty if the time ran out
     * @throws Exception whatever the lock throws
     */
    Optional<Held> acquire(Duration timeout) throws Exception;

    /**
     * Has {@code listener} hear the hold-state changes of this target's lock object; does nothing for a lock that has
     * no hold states (Curator's, whose holders follow the client's connection instead: {@link #followsConnection()}).
     */
    void addStateListener(LockStateListener listener);

    /**
     * Tells whether the holder learns of trouble only from the client's connection states (Curator's recipes: SUSPENDED
     * stands for IN_DOUBT, LOST for LOST).
     */
    default boolean followsConnection() {
        return false;
    }

    /**
     * Leaves the lock object for good, when the worker's run is over and before the client closes: a leader election's
     * participant withdraws (else a selector that requeues itself would try again on a closed client). Nothing for a
     * lock, whose holds the worker has released.
     *
     * @throws Exception whatever the participant's close throws
     */
    default void close() throws Exception {}

    /** Gives a hold back. */
    @FunctionalInterface
    interface Release {
        void release() throws Exception;
    }

    /**
     * One hold.
     *
     * @param token the hold's fencing token (zklock's), or its node's creation zxid (Curator's), or empty if none is
     *     known
     * @param concerns tells whether a state event of the lock object is about this hold
     * @param state the hold's state now, where the lock has one (no ZooKeeper call)
     * @param release gives the hold back
     */
    record Held(
            OptionalLong token,
            Predicate<LockStateEvent> concerns,
            Supplier<Optional<LockState>> state,
            Release release) {
        /** Returns the token as the history spells it: the number, or {@code -}. */
        String tokenSpelling() {
            return token.isPresent() ? Long.toString(token.getAsLong()) : "-";
        }
    }
}
