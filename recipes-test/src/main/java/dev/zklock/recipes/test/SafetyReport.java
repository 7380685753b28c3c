package dev.zklock.recipes.test;

import java.util.List;

/**
 * What a {@link SafetyMonitor} saw: how many holds and waits it recorded, and how many times each safety property was
 * broken, with the first violations spelled out. Immutable, so safe for use by multiple threads.
 *
 * @param holds holds entered
 * @param lostHolds holds whose session ended while they were held (or before they were recorded): lost, not broken
 * @param sameNodeHolds holds on the node of the newest hold of their path (the same creation zxid in their tokens):
 *     passed on locally, cached, or shared by local readers (not a violation: each has a larger token of that node)
 * @param waits acquires started
 * @param overlaps pairs of live, conflicting holds of one path at once
 * @param tokenRegressions holds whose fencing token was not larger than the newest of a hold they must follow
 *     (smaller, for a read or a lease after exclusive holds): every hold has a token of its own, and it grows
 * @param leakedNodes lock nodes left behind after everyone was done
 * @param stuckWaiters acquires that had not finished when the report was taken
 * @param firstViolations the first violations, in the order seen, stuck waiters last
 */
public record SafetyReport(
        long holds,
        long lostHolds,
        long sameNodeHolds,
        long waits,
        long overlaps,
        long tokenRegressions,
        long leakedNodes,
        long stuckWaiters,
        List<String> firstViolations) {

    /**
     * Copies the list of violations.
     *
     * @throws NullPointerException if {@code firstViolations} is null
     */
    public SafetyReport {
        firstViolations = List.copyOf(firstViolations);
    }

    /**
     * Tells whether no safety property was broken.
     *
     * @return {@code true} if overlaps, token regressions, leaked nodes and stuck waiters are all zero
     */
    public boolean isClean() {
        return overlaps == 0 && tokenRegressions == 0 && leakedNodes == 0 && stuckWaiters == 0;
    }

    /**
     * Returns the counts on one line, then one line per violation.
     *
     * @return a readable report
     */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(String.format(
                "holds %d (lost %d, on the node before %d), waits %d, overlaps %d, token regressions %d, leaked nodes %d,"
                        + " stuck waiters %d",
                holds, lostHolds, sameNodeHolds, waits, overlaps, tokenRegressions, leakedNodes, stuckWaiters));
        for (String violation : firstViolations) {
            text.append(System.lineSeparator()).append("  ").append(violation);
        }
        return text.toString();
    }
}
