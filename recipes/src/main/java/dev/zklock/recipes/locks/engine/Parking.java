package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Where every thread of the engine parks, wakes another and waits for a reply: through the thread's own {@link
 * ParkPort} if it has one (a simulated thread), else through the JDK. One type check per call and nothing else, so a
 * production thread pays nothing measurable for the port. Stateless; no ZooKeeper call.
 */
public final class Parking {
    private Parking() {}

    /** As {@code LockSupport.park(blocker)}. */
    public static void park(Object blocker) {
        if (Thread.currentThread() instanceof ParkPort port) {
            port.parkThread(blocker, Long.MAX_VALUE);
        } else {
            LockSupport.park(blocker);
        }
    }

    /** As {@code LockSupport.parkNanos(blocker, nanos)}. */
    public static void parkNanos(Object blocker, long nanos) {
        if (Thread.currentThread() instanceof ParkPort port) {
            port.parkThread(blocker, nanos);
        } else {
            LockSupport.parkNanos(blocker, nanos);
        }
    }

    /** As {@code LockSupport.unpark(thread)}. */
    public static void unpark(Thread thread) {
        if (thread instanceof ParkPort port) {
            port.wakeThread();
        } else {
            LockSupport.unpark(thread);
        }
    }

    /** As {@code System.nanoTime()}, on the calling thread's port's clock if it has one. */
    public static long nanoTime() {
        return Thread.currentThread() instanceof ParkPort port ? port.clock().read() : System.nanoTime();
    }

    /** Tells whether the calling thread's acquires are driven as a virtual thread's: it is one, or simulates one. */
    static boolean drivesAsVirtual() {
        return Thread.currentThread() instanceof ParkPort port ? port.drivesAsVirtual() : Threads.isVirtual();
    }

    /** As {@code future.get()}. */
    public static <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
        if (Thread.currentThread() instanceof ParkPort port) {
            return parkFor(port, future, Long.MAX_VALUE);
        }
        return future.get();
    }

    /**
     * As {@code future.get(nanos, NANOSECONDS)}: waits at most {@code nanos}, forever for {@link Long#MAX_VALUE}.
     *
     * @throws TimeoutException if it did not complete in time
     */
    public static <T> T get(CompletableFuture<T> future, long nanos)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (Thread.currentThread() instanceof ParkPort port) {
            T value = parkFor(port, future, nanos);
            if (value == null && !future.isDone()) {
                throw new TimeoutException();
            }
            return value;
        }
        return nanos == Long.MAX_VALUE ? future.get() : future.get(nanos, TimeUnit.NANOSECONDS);
    }

    /** Parks through {@code port} until {@code future} completes (its value), the time is up (null) or an interrupt. */
    private static <T> T parkFor(ParkPort port, CompletableFuture<T> future, long nanos)
            throws InterruptedException, ExecutionException {
        if (!future.isDone()) {
            long end = nanos == Long.MAX_VALUE ? 0 : port.clock().read() + nanos;
            future.whenComplete((value, failure) -> port.wakeThread());
            while (!future.isDone()) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = nanos == Long.MAX_VALUE
                        ? Long.MAX_VALUE
                        : end - port.clock().read();
                if (left <= 0) {
                    return null;
                }
                port.parkThread(future, left);
            }
        }
        return future.get(); // done: returns or throws at once
    }
}
