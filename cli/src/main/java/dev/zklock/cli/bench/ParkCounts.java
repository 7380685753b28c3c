package dev.zklock.cli.bench;

import java.util.OptionalLong;

/**
 * What a run's contenders counted of their parks, where it was counted: their threads' context switches
 * ({@link ThreadSwitches}) and, for the JDK fair lock, the acquires that found it free and nobody queued
 * ({@link JdkFairLock}). Runs of several rounds {@linkplain #plus add up}; a figure one round did not count is empty in
 * the sum. Immutable.
 *
 * @param threadSwitches the context switches of the contenders' threads over their loops, if the system tells them
 * @param foundFree the acquires that found the lock free and nobody queued as they were asked, if the lock tells them
 */
record ParkCounts(OptionalLong threadSwitches, OptionalLong foundFree) {
    /** Nothing counted. */
    static final ParkCounts NONE = new ParkCounts(OptionalLong.empty(), OptionalLong.empty());

    /** Returns these counts and {@code other}'s added, each empty unless both counted it. */
    ParkCounts plus(ParkCounts other) {
        return new ParkCounts(
                Measurement.sum(threadSwitches, other.threadSwitches), Measurement.sum(foundFree, other.foundFree));
    }
}
