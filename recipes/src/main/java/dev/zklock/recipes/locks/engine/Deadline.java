package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The one deadline of an acquire, on a {@link Ticker} ({@link System#nanoTime()} but in the simulator): forever, or a
 * point in time. A non-positive timeout makes a deadline that has already passed, which the lock queue reads as "one
 * try, never wait". Immutable; as small as it was with no ticker (a reference in place of a flag).
 */
public final class Deadline {
    private static final Deadline FOREVER = new Deadline(0, Parking::nanoTime); // the calling thread's clock

    private final long deadlineNanos;
    private final Ticker ticker;

    private Deadline(long deadlineNanos, Ticker ticker) {
        this.deadlineNanos = deadlineNanos;
        this.ticker = ticker;
    }

    public static Deadline forever() {
        return FOREVER;
    }

    /** Returns the deadline {@code timeoutNanos} from now, clamped so that the arithmetic cannot overflow. */
    public static Deadline after(long timeoutNanos) {
        return after(timeoutNanos, Ticker.SYSTEM);
    }

    /** Returns the deadline {@code timeoutNanos} from now on {@code ticker}, clamped as {@link #after(long)}. */
    public static Deadline after(long timeoutNanos, Ticker ticker) {
        long now = ticker.read();
        long clamped = Math.max(0, Math.min(timeoutNanos, Long.MAX_VALUE / 2));
        return new Deadline(now + clamped, ticker);
    }

    public boolean isForever() {
        return this == FOREVER;
    }

    /** Returns the nanoseconds left, at most {@code Long.MAX_VALUE} for a deadline that never passes, never negative. */
    public long remainingNanos() {
        return isForever() ? Long.MAX_VALUE : Math.max(0, deadlineNanos - ticker.read());
    }

    /**
     * Returns the instant, on {@link System#nanoTime()}, {@code nanos} after the earlier of now and this deadline: how
     * long a reply sent now may be waited for when the acquire must come back within its timeout plus {@code nanos}.
     */
    public long plusNanos(long nanos) {
        long now = ticker.read();
        return (isForever() || deadlineNanos - now > 0 ? now : deadlineNanos) + nanos;
    }

    /**
     * Returns the nanoseconds from now until {@code nanos} after this deadline, never negative ({@code Long.MAX_VALUE}
     * for a deadline that never passes): how long steps begun now, even after the deadline, may still wait for replies
     * when the acquire must come back within its timeout plus {@code nanos}.
     */
    public long remainingNanosPlus(long nanos) {
        return isForever() ? Long.MAX_VALUE : Math.max(0, deadlineNanos - ticker.read() + nanos);
    }

    public boolean hasPassed() {
        return !isForever() && deadlineNanos - ticker.read() <= 0;
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
            if (isForever() && minimumNanos == 0) {
                return Parking.get(future);
            }
            if (isForever()) {
                return Parking.get(future, minimumNanos);
            }
            return Parking.get(future, waitNanos(minimumNanos, ticker.read()));
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

    /** As {@link #waitNanos(long, long)} now, on this deadline's ticker. */
    long waitNanos(long minimumNanos) {
        return waitNanos(minimumNanos, ticker.read());
    }

    @Override
    public String toString() {
        return isForever() ? "forever" : remainingNanos() / 1_000_000 + " ms left";
    }
}
