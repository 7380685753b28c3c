package dev.zklock.recipes.test.history;

/**
 * One row of {@link HistoryReport}: the findings of every checker over the lock paths of one lock kind and library.
 *
 * <p>Immutable and thread-safe.
 *
 * @param library the library, the second-to-last segment of the paths ({@code zklock}, {@code curator})
 * @param kind the lock kind, the last segment ({@code reentrant}, {@code mutex})
 * @param holds the {@code ok} acquires
 * @param invalidKeys the paths whose acquire/release history is not linearizable, and whose witness overlap nothing
 *     outside the lock explains
 * @param unknownKeys the paths whose search hit its bound
 * @param unexplainedOverlaps overlapping holds nothing outside the lock explains
 * @param explainedOverlaps overlapping holds a long pause, an expired session, a warning or a stranger explains
 * @param lostUpdates updates the unfenced counter lost
 * @param lateWritesRefused adds the fenced set refused as late
 * @param lostElements acknowledged adds missing from the fenced set
 * @param duplicatedElements elements the fenced set holds twice
 * @param maxHeldAfterExpiryMillis the longest a holder said HELD after its session was seen expired
 * @param dishonestHolds holds that said HELD past expiry or past another grant after a cut, or were granted while
 *     their client was suspended
 * @param livenessViolations heals without a grant in time and acquires that returned late
 * @param explainedInvalidKeys the paths not linearizable only through an overlap a pause past the session, an observed
 *     expiry, a LOST told first or a stranger's delete explains (what fencing is for)
 */
public record ReportRow(
        String library,
        String kind,
        long holds,
        long invalidKeys,
        long unknownKeys,
        long unexplainedOverlaps,
        long explainedOverlaps,
        long lostUpdates,
        long lateWritesRefused,
        long lostElements,
        long duplicatedElements,
        long maxHeldAfterExpiryMillis,
        long dishonestHolds,
        long livenessViolations,
        long explainedInvalidKeys) {

    /**
     * Returns whether this row shows a safety violation: a non-linearizable path, an unexplained overlap, a lost or
     * duplicated element, a HELD claim past expiry or a dishonest hold. Explained overlaps and lost updates are
     * reported, not counted here; nor is liveness.
     *
     * @return whether anything unsafe was found
     */
    public boolean isUnsafe() {
        return invalidKeys > 0
                || unexplainedOverlaps > 0
                || lostElements > 0
                || duplicatedElements > 0
                || maxHeldAfterExpiryMillis > 0
                || dishonestHolds > 0;
    }

    /** Returns the linearizability verdict as the tables show it: unexplained first, then explained, then unknown. */
    public String linearizability() {
        if (invalidKeys > 0) {
            return "**invalid** (" + invalidKeys + " paths)";
        }
        if (explainedInvalidKeys > 0) {
            return "invalid, explained (" + explainedInvalidKeys + " paths)";
        }
        return unknownKeys > 0 ? "unknown (" + unknownKeys + " paths)" : "valid";
    }
}
