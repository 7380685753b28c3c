package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one deadline of an acquire, on {@link System#nanoTime()}: forever, or a point in time. A non-positive timeout
 * makes a deadline that has already passed, which the lock queue reads as "one try, never wait".
 */
public final class Deadline {
    private static final Deadline FOREVER = new Deadline(0, true);

    private final long deadlineNanos;
    private final boolean forever;

    private Deadline(long deadlineNanos, boolean forever) {
        this.deadlineNanos = deadlineNanos;
        this.forever = forever;
    }

    public static Deadline forever() {
        return FOREVER;
    }

    /** Returns the deadline {@code timeoutNanos} from now, clamped so that the arithmetic cannot overflow. */
    public static Deadline after(long timeoutNanos) {
        long now = System.nanoTime();
        long clamped = Math.max(0, Math.min(timeoutNanos, Long.MAX_VALUE / 2));
        return new Deadline(now + clamped, false);
    }

    public boolean isForever() {
        return forever;
    }

    /** Returns the nanoseconds left, at most {@code Long.MAX_VALUE} for a deadline that never passes, never negative. */
    public long remainingNanos() {
        return forever ? Long.MAX_VALUE : Math.max(0, deadlineNanos - System.nanoTime());
    }

    /**
     * Returns the instant, on {@link System#nanoTime()}, {@code nanos} after the earlier of now and this deadline: how
     * long a reply sent now may be waited for when the acquire must come back within its timeout plus {@code nanos}.
     */
    public long plusNanos(long nanos) {
        long now = System.nanoTime();
        return (forever || deadlineNanos - now > 0 ? now : deadlineNanos) + nanos;
    }

    public boolean hasPassed() {
        return !forever && deadlineNanos - System.nanoTime() <= 0;
    }

    /**
     * Waits for {@code future} until this deadline, but at least {@code minimumNanos} from now, and never past {@code
     * minimumNanos} after the deadline: a reply to a request already sent is worth waiting one request timeout for,
     * even when the deadline is near, but the waits of an acquire past its deadline share that one request timeout, so
     * that the acquire comes back within its timeout plus one request timeout however many of them follow each other
     * (the partition rig saw a write lock's timed acquire come back 4,989 ms after its call, bound 4,666 ms, when a
     * wait for one reply began after the deadline had passed). No longer than {@code minimumNanos} for a reply under a
     * deadline that never passes (ZooKeeper's client answers every request within a request timeout, or fails it: a
     * reply that did not come is lost). Returns null on timeout.
     *
     * @param minimumNanos for a reply, one request timeout; 0 for a wait that ends only with the deadline
     */
    public <T> T await(CompletableFuture<T> future, long minimumNanos) throws InterruptedException {
        try {
            if (forever && minimumNanos == 0) {
                return future.get();
            }
            if (forever) {
                return future.get(minimumNanos, TimeUnit.NANOSECONDS);
            }
            return future.get(waitNanos(minimumNanos, System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (ExecutionException e) {
            // Our futures are completed by ZooKeeper callbacks that cannot throw: a failure here is a library bug.
            throw new AssertionError("a ZooKeeper callback failed", e.getCause());
        }
    }

    /**
     * How long {@link #await} waits at {@code nowNanos} with {@code minimumNanos} under this deadline (not one that
     * never passes): until the deadline, but at least {@code minimumNanos}, and never past {@code minimumNanos} after
     * the deadline. Pure.
     */
    long waitNanos(long minimumNanos, long nowNanos) {
        long left = deadlineNanos - nowNanos;
        return Math.max(0, Math.max(left, Math.min(0, left) + minimumNanos));
    }

    @Override
    public String toString() {
        return forever ? "forever" : remainingNanos() / 1_000_000 + " ms left";
    }
}
