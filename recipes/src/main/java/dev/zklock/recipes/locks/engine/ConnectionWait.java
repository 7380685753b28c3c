package dev.zklock.recipes.locks.engine;

import java.util.concurrent.TimeUnit;

/**
 * How a thread that waits anyway ({@link BlockingRunner}) waits for its client to be connected before a step that
 * sends: through the client's port only ({@link ClientPort#awaitConnected}), in slices of at most a second, so that a
 * client closed meanwhile is noticed rather than waited on for ever. Stateless; no ZooKeeper request.
 */
final class ConnectionWait {
    private static final long SLICE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long LEAST_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private ConnectionWait() {}

    /**
     * Waits until {@code lock}'s client is connected or the deadline passes; returns the current session, or null at
     * the deadline.
     *
     * @throws IllegalStateException if the client is not started or is closed (checked again every slice)
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    static SessionPort connected(LockPath lock, Deadline deadline) throws InterruptedException {
        ClientPort port = lock.context().port();
        while (true) {
            if (!port.isStarted()) {
                throw Checks.notStarted(lock.client(), lock.path(), null);
            }
            SessionPort session = port.connected();
            if (session != null) {
                return session;
            }
            if (deadline.hasPassed()) {
                return null;
            }
            port.awaitConnected(lock, Math.max(LEAST_NANOS, Math.min(deadline.remainingNanos(), SLICE_NANOS)));
        }
    }
}
