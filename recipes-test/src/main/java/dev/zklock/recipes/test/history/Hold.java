package dev.zklock.recipes.test.history;

import java.util.OptionalLong;

/**
 * A hold as its holder saw it: from the {@code ok} of its acquire ({@code grant}) to the invocation of its release
 * ({@code end}), the interval in which the holder believes it may be inside the critical section.
 *
 * <p>Immutable and thread-safe.
 *
 * @param process the holder
 * @param key the lock path
 * @param mode {@code exclusive}, {@code read}, {@code write} or {@code lease}
 * @param token the hold's fencing token, if the holder had one
 * @param invoked the nanos its acquire was invoked: the grant may have been decided any time from then, so a pause of
 *     the holder's JVM between the two may have come after the lock was granted
 * @param grant the nanos of the acquire's {@code ok}
 * @param end the nanos of the release's invocation, {@link Long#MAX_VALUE} if the holder never released
 */
public record Hold(String process, String key, String mode, OptionalLong token, long invoked, long grant, long end) {

    /**
     * Returns whether the holder invoked a release.
     *
     * @return {@code false} for a hold open to the end of the history
     */
    public boolean isReleased() {
        return end != Long.MAX_VALUE;
    }

    /**
     * Returns the client id of the holder ({@code c2} for {@code c2.t1}).
     *
     * @return the client id
     */
    public String clientId() {
        return HistoryEvent.clientOf(process);
    }

    /**
     * Returns whether this hold and {@code other}, held by another process at once, break the lock: any two modes but
     * two reads. A semaphore's leases are counted instead ({@link MutexChecker}).
     *
     * @param other the other hold
     * @return whether the modes conflict
     */
    public boolean conflictsWith(Hold other) {
        return !process.equals(other.process) && Modes.conflict(mode, other.mode);
    }

    @Override
    public String toString() {
        return process + " " + mode + " [" + grant + ", " + (isReleased() ? Long.toString(end) : "open") + "]"
                + (token.isPresent() ? " token " + token.getAsLong() : "");
    }
}
