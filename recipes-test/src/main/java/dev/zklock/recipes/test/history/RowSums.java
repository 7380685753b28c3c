package dev.zklock.recipes.test.history;

/**
 * The running sums of one {@link ReportRow}, over the lock paths of one library and kind.
 *
 * <p>Not thread-safe: confined to the {@link HistoryReport#rows} call that made it.
 */
final class RowSums {
    private long holds;
    private long invalidKeys;
    private long explainedInvalidKeys;
    private long unknownKeys;
    private long unexplainedOverlaps;
    private long explainedOverlaps;
    private long lostUpdates;
    private long lateWritesRefused;
    private long lostElements;
    private long duplicatedElements;
    private long maxHeldAfterExpiryMillis;
    private long dishonestHolds;
    private long livenessViolations;

    void add(CheckResult r) {
        holds += r.acquires();
        boolean explained = r.witness().isPresent() && r.witness().get().isExplained();
        invalidKeys += r.verdict() == Verdict.INVALID && !explained ? 1 : 0;
        explainedInvalidKeys += r.verdict() == Verdict.INVALID && explained ? 1 : 0;
        unknownKeys += r.verdict() == Verdict.UNKNOWN ? 1 : 0;
        unexplainedOverlaps += r.unexplainedOverlaps();
        explainedOverlaps += r.explainedOverlaps();
    }

    void add(CounterResult r) {
        lostUpdates += r.lostUpdates();
    }

    void add(FencedSetResult r) {
        lateWritesRefused += r.refused();
        lostElements += r.lost().size();
        duplicatedElements += r.duplicated().size();
    }

    void add(HoldStateResult r) {
        dishonestHolds += r.dishonest().size();
        maxHeldAfterExpiryMillis = Math.max(maxHeldAfterExpiryMillis, r.maxHeldAfterExpiryNanos() / 1_000_000);
    }

    void add(LivenessViolation v) {
        livenessViolations++;
    }

    ReportRow toRow(String library, String kind) {
        return new ReportRow(
                library,
                kind,
                holds,
                invalidKeys,
                unknownKeys,
                unexplainedOverlaps,
                explainedOverlaps,
                lostUpdates,
                lateWritesRefused,
                lostElements,
                duplicatedElements,
                maxHeldAfterExpiryMillis,
                dishonestHolds,
                livenessViolations,
                explainedInvalidKeys);
    }
}
