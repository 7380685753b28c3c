package dev.zklock.recipes.locks;

import java.time.Duration;

/**
 * Thrown by {@code hold(Duration)}, and the failure of the future of {@code acquireAsync(Duration)}, when the lock
 * could not be acquired in time. Nothing the acquire created is left behind. (The boolean {@code acquire(...)}
 * methods return {@code false} instead.)
 *
 * @since 0.1.0
 */
public final class LockTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The lock path, or the paths of a multi-lock. */
    private final String lockPath;

    /** How long the acquire was allowed to take. */
    private final Duration timeout;

    /**
     * Creates the exception for a lock not acquired within {@code timeout}.
     *
     * @param lockPath the lock path (for a multi-lock, its paths)
     * @param timeout how long the acquire was allowed to take
     */
    public LockTimeoutException(String lockPath, Duration timeout) {
        super("lock '" + lockPath + "' not acquired within " + timeout.toMillis() + " ms");
        this.lockPath = lockPath;
        this.timeout = timeout;
    }

    /**
     * Returns the path of the lock that was not acquired (for a multi-lock, its paths).
     *
     * @return the lock path, relative to the client's namespace
     */
    public String lockPath() {
        return lockPath;
    }

    /**
     * Returns the time the acquire was given.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return timeout;
    }
}
