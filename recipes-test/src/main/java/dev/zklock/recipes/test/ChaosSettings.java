package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one chaos run does: how long, how many clients and threads on how many lock paths of which kinds, and which real
 * faults how often. Everything random in a run comes from {@link #seed()}: the fault schedule and each thread's choices
 * of lock, timeout and hold time are the same for the same seed and settings; thread timing is not. Immutable, so safe
 * for use by multiple threads.
 *
 * @param seed the one source of randomness
 * @param duration how long the workload and the faults run (the final checks come on top)
 * @param clients clients, each on its own session (at least 1)
 * @param threads threads that loop acquire, hold, release; thread {@code i} uses client {@code i % clients}, so the
 *     threads beyond the number of clients share clients (and, for kinds owned per thread, lock objects)
 * @param lockPaths lock paths the threads contend for, per family of kinds (at least 1, and at least the paths one
 *     multi-lock takes)
 * @param kinds the lock kinds; client {@code i} uses kind {@code i % kinds.size()}
 * @param faultWeights the relative frequency of each fault kind; a kind that is missing, weighs 0 or does not apply to
 *     the servers is never injected
 * @param meanFaultInterval the mean time between two faults
 * @param maxAcquireTimeout the longest timeout an acquire is given (each draws one up to it; one in five tries once)
 * @param maxHold the longest a holder holds before it releases, but for one hold in ten, which may last ten times as
 *     long
 */
public record ChaosSettings(
        long seed,
        Duration duration,
        int clients,
        int threads,
        int lockPaths,
        List<LockKind> kinds,
        Map<FaultKind, Integer> faultWeights,
        Duration meanFaultInterval,
        Duration maxAcquireTimeout,
        Duration maxHold) {
    /** The clients of the {@linkplain #defaults default run}. */
    public static final int DEFAULT_CLIENTS = 20;

    /** The threads of the {@linkplain #defaults default run}. */
    public static final int DEFAULT_THREADS = 60;

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException if a count or duration is out of range, naming it and its value
     * @throws NullPointerException if an argument is null
     */
    public ChaosSettings {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(meanFaultInterval, "meanFaultInterval");
        Objects.requireNonNull(maxAcquireTimeout, "maxAcquireTimeout");
        Objects.requireNonNull(maxHold, "maxHold");
        Objects.requireNonNull(kinds, "kinds");
        Objects.requireNonNull(faultWeights, "faultWeights");
        kinds = List.copyOf(kinds);
        faultWeights = faultWeights.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(faultWeights));
        require(duration.toMillis() > 0, "duration must be positive, not %s", duration);
        require(clients >= 1, "clients must be at least 1, not %d", clients);
        require(threads >= clients, "threads must be at least clients (%d), not %d", clients, threads);
        require(lockPaths >= 1, "lockPaths must be at least 1, not %d", lockPaths);
        require(!kinds.isEmpty(), "kinds must name at least one lock kind");
        require(meanFaultInterval.toMillis() > 0, "meanFaultInterval must be positive, not %s", meanFaultInterval);
        require(!maxAcquireTimeout.isNegative(), "maxAcquireTimeout must not be negative, not %s", maxAcquireTimeout);
        require(!maxHold.isNegative(), "maxHold must not be negative, not %s", maxHold);
        faultWeights.forEach((kind, weight) -> require(weight >= 0, "weight of %s must not be negative", kind));
    }

    /**
     * Returns the default run: 20 clients and 60 threads on 3 lock paths per family, every built-in lock kind (so each
     * of the 10 kinds runs on two clients, each client with three threads: enough for a cohort lock's threads to pass
     * it among themselves), a fault every 800 ms on average (session expiries and connection drops four times as often
     * as server restarts and leader kills), acquires of up to 3 s and holds of up to 20 ms (one in ten up to 200 ms).
     *
     * @param seed the one source of randomness
     * @param duration how long the workload runs
     * @return the settings
     */
    public static ChaosSettings defaults(long seed, Duration duration) {
        Map<FaultKind, Integer> weights = Map.of(
                FaultKind.SESSION_EXPIRY, 4,
                FaultKind.CONNECTION_DROP, 4,
                FaultKind.SERVER_RESTART, 1,
                FaultKind.LEADER_KILL, 1);
        return new ChaosSettings(
                seed,
                duration,
                DEFAULT_CLIENTS,
                DEFAULT_THREADS,
                3,
                LockKind.builtIn(),
                weights,
                Duration.ofMillis(800),
                Duration.ofSeconds(3),
                Duration.ofMillis(20));
    }

    /**
     * Returns a run aimed at cohort locks ({@link LockKind#cohorts()}): the faults that a lock passing its node among
     * local threads must live through, on 20 clients and 60 threads, two lock paths per family. The four cohort kinds
     * share the paths with zklock's reentrant, exclusive, multi, read and write locks and with Curator's mutex (ten
     * kinds, so each runs on two clients of three threads). A fault comes every 800 ms on average, if the one before
     * is over: connection silences shorter than the session timeout ({@link FaultKind#CONNECTION_SILENCE}, weight 2:
     * each takes 5 to 8 s), lock nodes deleted by a stranger ({@link FaultKind#NODE_DELETE}, 4) and clients closed
     * under their threads ({@link FaultKind#CLIENT_CLOSE}, 3), beside session expiries and connection drops (2 each);
     * no server faults. Acquires of up to 3 s, holds of up to 20 ms (one in ten up to 200 ms), as in the
     * {@linkplain #defaults default run}.
     *
     * @param seed the one source of randomness
     * @param duration how long the workload runs
     * @return the settings
     */
    public static ChaosSettings cohortFaults(long seed, Duration duration) {
        Map<FaultKind, Integer> weights = Map.of(
                FaultKind.SESSION_EXPIRY, 2,
                FaultKind.CONNECTION_DROP, 2,
                FaultKind.CONNECTION_SILENCE, 2,
                FaultKind.NODE_DELETE, 4,
                FaultKind.CLIENT_CLOSE, 3);
        return new ChaosSettings(
                seed,
                duration,
                DEFAULT_CLIENTS,
                DEFAULT_THREADS,
                2,
                List.of(
                        LockKind.zkCohort(),
                        LockKind.zkCohortCached(),
                        LockKind.zkCohortRead(),
                        LockKind.zkCohortWrite(),
                        LockKind.zkReentrant(),
                        LockKind.zkExclusive(),
                        LockKind.curatorMutex(),
                        LockKind.zkMulti(),
                        LockKind.zkRead(),
                        LockKind.zkWrite()),
                weights,
                Duration.ofMillis(800),
                Duration.ofSeconds(3),
                Duration.ofMillis(20));
    }

    /**
     * Returns these settings with other lock kinds.
     *
     * @param newKinds the kinds, at least one
     * @return new settings
     */
    public ChaosSettings withKinds(List<LockKind> newKinds) {
        return new ChaosSettings(
                seed,
                duration,
                clients,
                threads,
                lockPaths,
                newKinds,
                faultWeights,
                meanFaultInterval,
                maxAcquireTimeout,
                maxHold);
    }

    /**
     * Returns these settings with other numbers of clients and threads.
     *
     * @param newClients clients, at least 1
     * @param newThreads threads, at least {@code newClients}
     * @return new settings
     */
    public ChaosSettings withClients(int newClients, int newThreads) {
        return new ChaosSettings(
                seed,
                duration,
                newClients,
                newThreads,
                lockPaths,
                kinds,
                faultWeights,
                meanFaultInterval,
                maxAcquireTimeout,
                maxHold);
    }

    private static void require(boolean condition, String format, Object... args) {
        if (!condition) {
            throw new IllegalArgumentException(String.format(format, args));
        }
    }
}
