package dev.zklock.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What a run's contenders counted of their parks, where it was counted: their threads' context switches
 * ({@link ThreadSwitches}) and, for the JDK fair lock, the acquires that found it free and nobody queued
 * ({@link JdkFairLock}); and, round by round, each round's pace: whether a lock queued every acquire in that round (a
 * convoy: about one switch per acquisition) or let threads run on through a free lock. Runs of several rounds
 * {@linkplain #plus add up}; a figure one round did not count is empty in the sum, and the rounds' paces are kept in
 * round order. Immutable.
 *
 * @param threadSwitches the context switches of the contenders' threads over their loops, if the system tells them
 * @param foundFree the acquires that found the lock free and nobody queued as they were asked, if the lock tells them
 * @param rounds each round's pace, in round order, where the switches were counted
 */
record ParkCounts(OptionalLong threadSwitches, OptionalLong foundFree, List<Round> rounds) {
    /** Nothing counted. */
    static final ParkCounts NONE = new ParkCounts(OptionalLong.empty(), OptionalLong.empty());

    /**
     * One round's pace.
     *
     * @param acquisitions the acquisitions of the round
     * @param elapsedNanos the time they took
     * @param threadSwitches the contenders' context switches over the round
     */
    record Round(long acquisitions, long elapsedNanos, long threadSwitches) {
        /** Returns the round's acquisitions per second. */
        double perSecond() {
            return elapsedNanos == 0 ? Double.NaN : acquisitions * 1e9 / elapsedNanos;
        }

        /** Returns the round's context switches per acquisition. */
        double switchesPerAcquisition() {
            return acquisitions == 0 ? Double.NaN : threadSwitches / (double) acquisitions;
        }
    }

    ParkCounts {
        rounds = List.copyOf(rounds);
    }

    /** Counts of a run whose rounds are not told apart. */
    ParkCounts(OptionalLong threadSwitches, OptionalLong foundFree) {
        this(threadSwitches, foundFree, List.of());
    }

    /**
     * Counts of one round of {@code acquisitions} in {@code elapsedNanos}: its pace is kept if the switches were
     * counted.
     */
    static ParkCounts ofRound(
            OptionalLong threadSwitches, OptionalLong foundFree, long acquisitions, long elapsedNanos) {
        return new ParkCounts(
                threadSwitches,
                foundFree,
                threadSwitches.isPresent()
                        ? List.of(new Round(acquisitions, elapsedNanos, threadSwitches.getAsLong()))
                        : List.of());
    }

    /** Returns these counts and {@code other}'s added, each empty unless both counted it; the rounds' paces in order. */
    ParkCounts plus(ParkCounts other) {
        List<Round> both = new ArrayList<>(rounds);
        both.addAll(other.rounds);
        return new ParkCounts(
                Measurement.sum(threadSwitches, other.threadSwitches),
                Measurement.sum(foundFree, other.foundFree),
                both);
    }
}
