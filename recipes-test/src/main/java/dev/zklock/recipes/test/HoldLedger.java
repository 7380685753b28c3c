package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.test.SafetyMonitor.Claim;
import dev.zklock.recipes.test.SafetyMonitor.Hold;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link SafetyMonitor} knows of holds, and the checks it makes at each: per lock path the holds inside and the
 * nodes strangers deleted ({@link PathState}), the sessions that ended, the lost grants ({@link LostGrants}) and
 * overlaps ({@link Overlaps}) found, the token rule, the counts and the first violations. The monitor's public methods
 * come here; it keeps the waiters. Not thread-safe: guarded by the monitor's lock, as its parts are. No ZooKeeper call.
 */
final class HoldLedger {
    private static final int FIRST_VIOLATIONS = 20;

    private final Map<String, PathState> paths = new HashMap<>();
    private final Set<Long> endedSessions = new HashSet<>();
    private final Set<Long> sessionEndsInFlight = new HashSet<>(); // announced, not yet answered
    private final List<String> violations = new ArrayList<>();
    private final Overlaps overlaps = new Overlaps();
    private final LostGrants lostGrants = new LostGrants();
    private long holds;
    private long lostHolds;
    private long sameNodeHolds;
    private long tokenRegressions;
    private long leakedNodes;

    /** Records that {@code hold} entered, and checks it: lost grants, overlaps, the token rule. */
    void enter(Hold hold) {
        Claim claim = hold.claim();
        holds++;
        PathState state = paths.computeIfAbsent(claim.lockPath(), path -> new PathState());
        hold.grantedLost = lostGrants.check(state, hold, endedSessions, sessionEndsInFlight);
        if (hold.grantedLost == null) {
            hold.endedBy = LostGrants.duringEnd(state, hold, endedSessions, sessionEndsInFlight);
        }
        lostHolds += hold.isLive() ? 0 : 1;
        for (String text : overlaps.check(state.inside, hold)) {
            violation("%s", text);
        }
        if (hold.isLive()) {
            checkToken(state, hold);
        }
        state.inside.add(hold);
    }

    /**
     * Checks the token rule for a hold live as it enters (granted on a standing node of a live session, and not ended
     * from outside as it enters: such a hold's grant may be older than a hold already inside, so its token may be
     * smaller, which is what its token is for); counts a hold on the node before.
     */
    private void checkToken(PathState state, Hold hold) {
        Claim claim = hold.claim();
        if (state.regresses(claim)) {
            tokenRegressions++;
            violation(
                    "token regression on %s: %s (%s) entered after a hold with token %d",
                    claim.lockPath(), hold.owner(), claim, state.floor(claim));
        }
        if (state.onNewestNode(claim.token())) {
            sameNodeHolds++;
            hold.sameNodeAsBefore = true;
        }
        state.entered(claim);
    }

    /** Records that {@code hold} exited at {@code nowNanos}; it entered, and exits once. */
    void exit(Hold hold, long nowNanos) {
        paths.get(hold.claim().lockPath()).inside.remove(hold);
        overlaps.exited(hold, nowNanos);
    }

    /** Records that the server ended {@code sessionId}; see {@link SafetyMonitor#sessionEnded}. */
    void sessionEnded(long sessionId) {
        if (!endedSessions.add(sessionId)) {
            return;
        }
        sessionEndsInFlight.add(sessionId);
        String cause = "its session 0x" + Long.toHexString(sessionId) + " ended while it held";
        for (PathState state : paths.values()) {
            lostHolds += state.endFromOutside(hold -> hold.claim().sessionId() == sessionId, cause);
        }
    }

    /** Records that the end of {@code sessionId} is done; see {@link SafetyMonitor#sessionEndAnswered}. */
    void sessionEndAnswered(long sessionId) {
        sessionEndsInFlight.remove(sessionId);
    }

    /** Records that a stranger deletes a node; see {@link SafetyMonitor#nodeDeleted}. */
    void nodeDeleted(String lockPath, long creationZxid) {
        PathState state = paths.computeIfAbsent(lockPath, path -> new PathState());
        if (state.deletedNodes.putIfAbsent(creationZxid, System.nanoTime()) != null) {
            return;
        }
        state.deletesInFlight.add(creationZxid);
        lostHolds += state.endFromOutside(
                hold -> FencingToken.creationZxid(hold.claim().token()) == creationZxid,
                "a stranger deleted its node while it held");
    }

    /** Records that a stranger's delete has its answer; see {@link SafetyMonitor#nodeDeleteAnswered}. */
    void nodeDeleteAnswered(String lockPath, long creationZxid) {
        PathState state = paths.get(lockPath);
        if (state != null && state.deletesInFlight.remove(creationZxid)) {
            state.deletedNodes.put(creationZxid, System.nanoTime());
        }
    }

    /** The claims of the live holds of {@code lockPath} now, in the order they entered. */
    List<Claim> liveClaims(String lockPath) {
        PathState state = paths.get(lockPath);
        return state == null ? List.of() : state.liveClaims();
    }

    /** Records lock nodes left behind under {@code lockPath}, each a violation. */
    void nodesLeft(String lockPath, Collection<String> nodes) {
        for (String node : nodes) {
            leakedNodes++;
            violation("node left behind under %s: %s", lockPath, node);
        }
    }

    /**
     * Returns the report of what was seen by {@code nowNanos}, with the waiters' counts from the monitor; the texts of
     * stuck waiters follow the violations while there is room among the first.
     */
    SafetyReport report(long nowNanos, long waits, long stuck, List<String> stuckWaiters) {
        List<String> found = new ArrayList<>(violations);
        for (String text : stuckWaiters) {
            if (found.size() < FIRST_VIOLATIONS) {
                found.add(text);
            }
        }
        return new SafetyReport(
                holds,
                lostHolds,
                lostGrants.onDeletedNodes(),
                lostGrants.longestLag(),
                lostGrants.firstOnDeletedNodes(),
                sameNodeHolds,
                waits,
                overlaps.violations(),
                overlaps.explained(),
                overlaps.longestExplained(nowNanos),
                overlaps.firstExplained(),
                tokenRegressions,
                leakedNodes,
                stuck,
                found);
    }

    private void violation(String format, Object... args) {
        if (violations.size() < FIRST_VIOLATIONS) {
            violations.add(String.format(format, args));
        }
    }
}
