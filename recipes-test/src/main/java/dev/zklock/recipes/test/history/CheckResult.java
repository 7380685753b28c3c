package dev.zklock.recipes.test.history;

import java.util.List;
import java.util.Optional;

/**
 * What {@link MutexChecker} found on one lock: the linearizability verdict with the search's bound, and the direct
 * count of overlapping holds, each explained or not.
 *
 * <p>The verdict is {@link Verdict#UNKNOWN} when the search visited {@code maxConfigurations} configurations without
 * an answer; it is never {@link Verdict#VALID} then.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lock path
 * @param verdict linearizable against the lock model, not, or unknown
 * @param acquires the number of {@code ok} acquires
 * @param configurations the configurations the search visited
 * @param maxConfigurations the search's bound
 * @param witness for an invalid history, two overlapping holds if there are any (the first unexplained one first)
 * @param detail for an invalid history, the operation that fits no order and what was held then
 * @param overlaps every overlap of two holds, in order of the second grant
 */
public record CheckResult(
        String key,
        Verdict verdict,
        int acquires,
        long configurations,
        long maxConfigurations,
        Optional<Overlap> witness,
        String detail,
        List<Overlap> overlaps) {

    /**
     * Creates a result, copying the list of overlaps.
     *
     * @param key the lock path
     * @param verdict linearizable against the lock model, not, or unknown
     * @param acquires the number of {@code ok} acquires
     * @param configurations the configurations the search visited
     * @param maxConfigurations the search's bound
     * @param witness for an invalid history, two overlapping holds if there are any (the first unexplained one first)
     * @param detail for an invalid history, the operation that fits no order and what was held then
     * @param overlaps every overlap of two holds, in order of the second grant
     */
    public CheckResult {
        overlaps = List.copyOf(overlaps);
    }

    /**
     * Returns the number of overlaps nothing outside the lock explains.
     *
     * @return the unexplained overlaps
     */
    public long unexplainedOverlaps() {
        return overlaps.stream().filter(o -> !o.isExplained()).count();
    }

    /**
     * Returns the number of overlaps a long pause, an expired session, a warning to the holder or a stranger's
     * delete explains.
     *
     * @return the explained overlaps
     */
    public long explainedOverlaps() {
        return overlaps.size() - unexplainedOverlaps();
    }
}
