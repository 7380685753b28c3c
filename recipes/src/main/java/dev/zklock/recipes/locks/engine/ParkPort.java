package dev.zklock.recipes.locks.engine;

/**
 * The engine's port to parking, implemented by a thread that parks through it: the simulator's threads, whose every
 * park, wake and turn its seed decides, so that the engine's blocking runners run in the simulator as they run for
 * users. Every park, wake and wait for a reply of the engine goes through {@link Parking}, which asks this port
 * of a thread that is one and the JDK ({@code LockSupport}, {@code CompletableFuture.get}) of any
 * other. A thread that implements it interrupts through it too: its {@code Thread.interrupt()} sets the flag and wakes
 * it. No ZooKeeper call; a production thread never implements it.
 */
public interface ParkPort {
    /**
     * Parks the calling thread, which is this one, until {@link #wakeThread} (or a wake that came before this park),
     * an interrupt, {@code nanos} on {@link #clock()}, or for no reason at all, as {@code LockSupport.parkNanos}.
     *
     * @param nanos how long at most; {@link Long#MAX_VALUE} for no limit; 0 or less returns at once
     */
    void parkThread(Object blocker, long nanos);

    /** Wakes this thread if it is parked, or has its next park return at once, as {@code LockSupport.unpark}. */
    void wakeThread();

    /** Tells whether the engine drives this thread's acquires as a virtual thread's (on callbacks, parked once). */
    boolean drivesAsVirtual();

    /** The clock its parks are timed by. */
    Ticker clock();
}
