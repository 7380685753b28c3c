package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link SafetyMonitor} saw: how many holds and waits it recorded, and how many times each safety property was
 * broken, with the first violations spelled out. Immutable, so safe for use by multiple threads.
 *
 * @param holds holds entered
 * @param lostHolds holds whose session ended, or whose node a stranger deleted, while they were held (or before they
 *     were recorded): data; an overlap with one is counted among the overlaps, explained or not
 * @param holdsOnDeletedNodes holds granted on a node after a stranger deleted it (counted among the lost holds too): a
 *     lock that learned of the delete only later; data, and an overlap with one is a violation
 * @param longestDeletedNodeLag the longest time from a node's delete to a hold granted on it
 * @param firstHoldsOnDeletedNodes the first holds granted on a deleted node, with their delay (not violations)
 * @param sameNodeHolds holds on the node of the newest hold of their path before them (the same creation zxid in the
 *     token, a larger pass): passed on locally, cached, or shared by local readers; not a violation
 * @param waits acquires started
 * @param overlaps violations: pairs of conflicting holds of one path inside at once (and leases beyond their count)
 *     that no fault explains, a hold entered on a node already deleted or on a session already ended among them
 * @param explainedOverlaps pairs of conflicting holds inside at once (and leases beyond their count) where the earlier
 *     hold was ended from outside after its grant, by its session's end or a stranger's delete of its node, while it
 *     was inside: what fencing tokens are for; not a violation
 * @param longestExplainedOverlap the longest explained overlap, from the later hold's entry until either hold exited
 *     (one still under way counted until the report)
 * @param firstExplainedOverlaps the first explained overlaps, with their causes (not violations)
 * @param tokenRegressions holds whose fencing token was not above the newest of a hold they must follow (below it, for
 *     a read or a lease after exclusive holds): every hold has a token of its own, and tokens grow
 * @param leakedNodes lock nodes left behind after everyone was done
 * @param stuckWaiters acquires that had not finished when the report was taken
 * @param firstViolations the first violations, in the order seen, stuck waiters last
 */
public record SafetyReport(
        long holds,
        long lostHolds,
        long holdsOnDeletedNodes,
        Duration longestDeletedNodeLag,
        List<String> firstHoldsOnDeletedNodes,
        long sameNodeHolds,
        long waits,
        long overlaps,
        long explainedOverlaps,
        Duration longestExplainedOverlap,
        List<String> firstExplainedOverlaps,
        long tokenRegressions,
        long leakedNodes,
        long stuckWaiters,
        List<String> firstViolations) {

    /**
     * Copies the lists.
     *
     * @throws NullPointerException if a duration or a list is null
     */
    public SafetyReport {
        Objects.requireNonNull(longestDeletedNodeLag, "longestDeletedNodeLag");
        Objects.requireNonNull(longestExplainedOverlap, "longestExplainedOverlap");
        firstHoldsOnDeletedNodes = List.copyOf(firstHoldsOnDeletedNodes);
        firstExplainedOverlaps = List.copyOf(firstExplainedOverlaps);
        firstViolations = List.copyOf(firstViolations);
    }

    /**
     * Tells whether no safety property was broken.
     *
     * @return {@code true} if overlaps (violations; explained overlaps do not count), token regressions, leaked nodes
     *     and stuck waiters are all zero
     */
    public boolean isClean() {
        return overlaps == 0 && tokenRegressions == 0 && leakedNodes == 0 && stuckWaiters == 0;
    }

    /**
     * Returns the counts on one line, then one line per violation, then one per explained overlap and one per hold on a
     * deleted node (as notes).
     *
     * @return a readable report
     */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(String.format(
                "holds %d (lost %d, on a deleted node %d up to %d ms after the delete, on the node before %d), waits %d,"
                        + " overlaps %d, explained overlaps %d (longest %.3f ms), token regressions %d, leaked nodes %d,"
                        + " stuck waiters %d",
                holds,
                lostHolds,
                holdsOnDeletedNodes,
                longestDeletedNodeLag.toMillis(),
                sameNodeHolds,
                waits,
                overlaps,
                explainedOverlaps,
                longestExplainedOverlap.toNanos() / 1e6,
                tokenRegressions,
                leakedNodes,
                stuckWaiters));
        for (String violation : firstViolations) {
            text.append(System.lineSeparator()).append("  ").append(violation);
        }
        for (String note : firstExplainedOverlaps) {
            text.append(System.lineSeparator()).append("  explained: ").append(note);
        }
        for (String note : firstHoldsOnDeletedNodes) {
            text.append(System.lineSeparator()).append("  note: ").append(note);
        }
        return text.toString();
    }
}
