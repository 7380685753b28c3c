package dev.zklock.recipes.test.partition;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How the {@link Nemesis} spaces its faults: each lasts a random time between {@code minFault} and {@code maxFault} (a
 * paused client its session timeout more), a random gap between {@code minGap} and {@code maxGap} follows its heal,
 * and the kinds come in rounds, each round every kind once in a seeded order, so that every kind gets its share of a
 * run. Immutable.
 *
 * @param minFault shortest fault
 * @param maxFault longest fault
 * @param minGap shortest gap after a heal
 * @param maxGap longest gap after a heal
 * @param kinds the kinds of fault made, each once per round
 */
public record NemesisSchedule(
        Duration minFault, Duration maxFault, Duration minGap, Duration maxGap, List<NemesisFault> kinds) {
    /** Checks the values and copies the list. */
    public NemesisSchedule {
        if (minFault.isNegative() || maxFault.compareTo(minFault) < 0) {
            throw new IllegalArgumentException(
                    "fault length must be 0 <= min <= max, not " + minFault + ".." + maxFault);
        }
        if (minGap.isNegative() || maxGap.compareTo(minGap) < 0) {
            throw new IllegalArgumentException("gap must be 0 <= min <= max, not " + minGap + ".." + maxGap);
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("a schedule needs at least one kind of fault");
        }
        kinds = List.copyOf(kinds);
    }

    /**
     * Returns the schedule of long runs: faults of 1 to 10 s, gaps of 1 to 3 s, every kind. A round of the nine kinds
     * takes about 75 s with 4 s sessions, so 10 minutes make about 8 episodes of each kind.
     */
    public static NemesisSchedule standard() {
        return new NemesisSchedule(
                Duration.ofSeconds(1),
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                Duration.ofSeconds(3),
                List.of(NemesisFault.values()));
    }

    /**
     * Returns the schedule of a short run of every kind: faults of 1 to 2 s, gaps of 2 to 3 s. A round of the nine
     * kinds takes about 50 s with 4 s sessions and the quorum waits after server faults, so a run of 80 s makes every
     * kind at least once, and some twice.
     */
    public static NemesisSchedule shortRun() {
        return new NemesisSchedule(
                Duration.ofSeconds(1),
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                List.of(NemesisFault.values()));
    }

    /** Returns a short schedule for tests: faults of 1 to 2 s and gaps of 0.5 s, of {@code kinds}. */
    public static NemesisSchedule brief(List<NemesisFault> kinds) {
        return new NemesisSchedule(
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofMillis(500), kinds);
    }

    /** Returns a random fault length of this schedule. */
    Duration faultLength(SplittableRandom random) {
        return between(random, minFault, maxFault);
    }

    /** Returns a random gap of this schedule. */
    Duration gap(SplittableRandom random) {
        return between(random, minGap, maxGap);
    }

    private static Duration between(SplittableRandom random, Duration min, Duration max) {
        long span = max.toMillis() - min.toMillis();
        return min.plusMillis(span == 0 ? 0 : random.nextLong(span + 1));
    }
}
