package dev.zklock.recipes.test;

import java.util.Optional;

/**
 * A resource that takes a write only with a fencing token at least as new as the newest it has seen: the guard a
 * store puts in front of its data so that a lock holder that lost its lock (a long pause, an expired session) cannot
 * overwrite the work of the holder that came after it, nor a write of an earlier holder delayed past a later one's.
 * zklock's tokens grow with every hold of a path, the local passes of a lock with local hand-off included
 * ({@code FencingToken}), so a later holder carries a larger token; a holder may write several times under its one
 * token, which is why an equal token may write.
 *
 * <pre>{@code
 * FencedResource<String> store = new FencedResource<>();
 * lock.acquire();
 * try {
 *     store.write(lock.fencingToken(), "new value");   // throws if a later holder already wrote
 * } finally {
 *     lock.release();
 * }
 * }</pre>
 *
 * <p>Thread-safe: writes and reads are serialized on the instance.
 *
 * @param <T> the type of value stored
 */
public final class FencedResource<T> {
    private long newestToken = Long.MIN_VALUE;
    private boolean written;
    private T value;

    /**
     * Stores {@code value} if {@code token} is at least the newest token seen, and remembers the token.
     *
     * @param token the writer's fencing token
     * @param value the value to store
     * @throws IllegalStateException naming both tokens if {@code token} is older than the newest seen
     */
    public synchronized void write(long token, T value) {
        if (token < newestToken) {
            throw new IllegalStateException(
                    "stale fencing token " + token + ": a holder with token " + newestToken + " already wrote");
        }
        newestToken = token;
        written = true;
        this.value = value;
    }

    /**
     * Returns the value last written.
     *
     * @return the value, or empty if nothing was written
     */
    public synchronized Optional<T> read() {
        return Optional.ofNullable(value);
    }

    /**
     * Returns the newest token that wrote.
     *
     * @return the token, or empty if nothing was written
     */
    public synchronized Optional<Long> newestToken() {
        return written ? Optional.of(newestToken) : Optional.empty();
    }
}
