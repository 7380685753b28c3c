package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** Waits that an interrupt cannot cut short; the interrupt flag is restored afterwards, as Guava's do. */
public final class Uninterruptibles {
    private Uninterruptibles() {}

    /** Waits up to {@code timeoutNanos} for {@code future}; returns null if it did not complete in time. */
    public static <T> T await(CompletableFuture<T> future, long timeoutNanos) {
        boolean interrupted = false;
        long end = Parking.nanoTime() + timeoutNanos;
        try {
            while (true) {
                try {
                    return Parking.get(future, Math.max(0, end - Parking.nanoTime()));
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    return null;
                } catch (ExecutionException e) {
                    // Our futures are completed by ZooKeeper callbacks that cannot throw: a failure here is a library
                    // bug.
                    throw new AssertionError("a ZooKeeper callback failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
