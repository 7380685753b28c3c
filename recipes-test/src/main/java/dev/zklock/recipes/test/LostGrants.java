package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.test.SafetyMonitor.Claim;
import dev.zklock.recipes.test.SafetyMonitor.Hold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The holds a {@link SafetyMonitor} saw entered lost from their grant: on a session already ended, or on a node a
 * stranger had already deleted (its delete answered) (counted, with the longest delay from the delete, as holds on deleted nodes: a lock that
 * goes on granting a deleted node shows even when nobody holds beside it). Guarded by the monitor's lock.
 */
final class LostGrants {
    private static final int FIRST = 20;

    private final List<String> firstOnDeletedNodes = new ArrayList<>();
    private long onDeletedNodes;
    private long longestLagNanos;

    /** Returns why {@code hold} is lost from its grant, or null if it was granted on a standing node of a live session. */
    String check(PathState state, Hold hold, Set<Long> endedSessions, Set<Long> endsInFlight) {
        Claim claim = hold.claim();
        String lost = null;
        if (endedSessions.contains(claim.sessionId())
                && !endsInFlight.contains(claim.sessionId())
                && !claim.heldAtEntry()) {
            lost = "entered after its session 0x" + Long.toHexString(claim.sessionId()) + " ended";
        }
        long node = FencingToken.creationZxid(claim.token());
        Long deletedAt = state.deletedNodes.get(node);
        if (deletedAt != null && !state.deletesInFlight.contains(node)) {
            long lagMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deletedAt);
            onDeletedNodes++;
            longestLagNanos = Math.max(longestLagNanos, System.nanoTime() - deletedAt);
            if (!claim.heldAtEntry()) {
                lost = "entered on a node a stranger had deleted " + lagMillis + " ms before";
            }
            if (firstOnDeletedNodes.size() < FIRST) {
                firstOnDeletedNodes.add(String.format(
                        "hold on a deleted node of %s: %s (%s) entered %d ms after the delete%s",
                        claim.lockPath(),
                        hold.owner(),
                        claim,
                        lagMillis,
                        claim.heldAtEntry() ? ", before its client heard of it" : ""));
            }
        }
        return lost;
    }

    /**
     * Returns why {@code hold}, entering on a session whose end or on a node whose stranger's delete is still in
     * flight, or is done but not yet heard by its client (the hold's own state said HELD as it entered), is ended from
     * outside as it enters, or null if none is: its grant may have been decided before the server ended the session or
     * applied the delete ({@link SafetyMonitor#sessionEndAnswered}, {@link SafetyMonitor#nodeDeleteAnswered}).
     */
    static String duringEnd(PathState state, Hold hold, Set<Long> endedSessions, Set<Long> sessionEndsInFlight) {
        Claim claim = hold.claim();
        String session = "its session 0x" + Long.toHexString(claim.sessionId());
        if (sessionEndsInFlight.contains(claim.sessionId())) {
            return "entered while the end of " + session + " was in flight";
        }
        if (claim.heldAtEntry() && endedSessions.contains(claim.sessionId())) {
            return "entered after " + session + " ended, before its client heard of it";
        }
        long node = FencingToken.creationZxid(claim.token());
        if (state.deletesInFlight.contains(node)) {
            return "entered while a stranger's delete of its node was in flight";
        }
        return claim.heldAtEntry() && state.deletedNodes.containsKey(node)
                ? "entered after a stranger's delete of its node was answered, before its client heard of it"
                : null;
    }

    long onDeletedNodes() {
        return onDeletedNodes;
    }

    Duration longestLag() {
        return Duration.ofNanos(longestLagNanos);
    }

    List<String> firstOnDeletedNodes() {
        return List.copyOf(firstOnDeletedNodes);
    }
}
