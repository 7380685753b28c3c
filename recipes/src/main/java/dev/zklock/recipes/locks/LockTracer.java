package dev.zklock.recipes.locks;

/**
 * Traces the acquisitions and holds of every lock of a client, one span each, for a tracing system: registered with
 * {@link LockMetrics#addTracer}. {@link dev.zklock.recipes.locks.micrometer.MicrometerLockObservations} is one, for
 * Micrometer's Observation API; this interface needs nothing but zklock. The single-path locks (reentrant, exclusive,
 * read and write locks, with or without local hand-off) are traced; multi-locks and {@link ZkSemaphore} leases are not.
 *
 * <p>{@link #acquisitionStarted} is called on the acquiring thread before the acquire's first request, so a tracer may
 * take the thread's current span as the parent; the span's end comes on the same thread for a blocking acquire, on the
 * common fork-join pool for {@code acquireAsync}. {@link #holdStarted} is called where the hold is handed out, and its
 * end where the hold is released, which may be another thread for a {@link LockHold}. Never on ZooKeeper's event
 * thread. Return quickly: an exception thrown here is logged and does not disturb the lock. A re-entry of a reentrant
 * lock is neither an acquisition nor a hold. Tracing costs no ZooKeeper request.
 *
 * @since 0.1.0
 */
public interface LockTracer {
    /** How an acquisition ended. */
    enum Outcome {
        /** The lock was granted. */
        GRANTED,
        /** The timeout passed first, or a single try found the lock held. */
        TIMED_OUT,
        /** The acquiring thread was interrupted, or an {@code acquireAsync} future was cancelled. */
        INTERRUPTED,
        /** The acquire threw (a {@link ZkLockException}, a closed client). */
        FAILED
    }

    /** The span of one acquisition, ended once. */
    interface AcquisitionSpan {
        /**
         * The acquisition ended.
         *
         * @param outcome how it ended
         * @param requests the ZooKeeper requests it sent, as the JFR event counts them: 0 for a local pass, 2 for an
         *     uncontended acquire (a create and a listing)
         * @param localPass whether the hold came from the process's cohort with no request of its own (local hand-off)
         * @param failure what the acquire threw, or null
         */
        void ended(Outcome outcome, int requests, boolean localPass, Throwable failure);
    }

    /** The span of one hold, ended once, at its release. */
    interface HoldSpan {
        /**
         * The hold was released.
         *
         * @param fencingToken the hold's fencing token
         * @param state the hold's state at its release
         */
        void released(long fencingToken, LockState state);
    }

    /**
     * An acquisition begins.
     *
     * @param lockPath the lock path
     * @param kind the lock's kind: {@code exclusive}, {@code read}, {@code write}, {@code semaphore mutex} or
     *     {@code custom} (a driver of the user's)
     * @return its span, or null for none
     */
    AcquisitionSpan acquisitionStarted(String lockPath, String kind);

    /**
     * A hold begins: the lock was just granted.
     *
     * @param lockPath the lock path
     * @param kind the lock's kind, as for {@link #acquisitionStarted}
     * @return its span, or null for none
     */
    HoldSpan holdStarted(String lockPath, String kind);
}
