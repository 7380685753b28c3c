package dev.zklock.recipes.test;

import dev.zklock.recipes.locks.FencingToken;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a {@link SafetyMonitor} keeps of one lock path: the holds inside (entered, not exited, whatever their nodes'
 * state), the largest tokens and the nodes strangers deleted (with when); and the token rule. A token is {@link FencingToken#of FencingToken.of(czxid, pass)}. A hold whose
 * token is not above the newest token of every hold it must follow regresses: an exclusive or write hold follows every
 * earlier hold of its path; a read or a lease need only not be below the earlier exclusive and write holds (readers and
 * leases share, and may enter in any order). Guarded by the monitor's lock.
 */
final class PathState {
    final List<SafetyMonitor.Hold> inside = new ArrayList<>();
    final Map<Long, Long> deletedNodes = new HashMap<>(); // creation zxid: when the delete was announced, then answered
    final Set<Long> deletesInFlight = new HashSet<>(); // creation zxids of deletes announced and not yet answered
    private long maxToken;
    private long maxExclusiveToken;

    /** The token a hold of {@code claim}'s mode must be above (shared modes: not below); 0 if there is none yet. */
    long floor(SafetyMonitor.Claim claim) {
        return shares(claim) ? maxExclusiveToken : maxToken;
    }

    /** Tells whether {@code claim}'s token breaks the rule. */
    boolean regresses(SafetyMonitor.Claim claim) {
        long floor = floor(claim);
        return claim.token() < floor || (!shares(claim) && floor != 0 && claim.token() == floor);
    }

    /** Tells whether {@code token} is of the node of the newest hold of the path (a hold on the node before). */
    boolean onNewestNode(long token) {
        return maxToken != 0 && FencingToken.creationZxid(token) == FencingToken.creationZxid(maxToken);
    }

    /** The claims of the holds inside whose session and node stand, as far as the monitor was told. */
    List<SafetyMonitor.Claim> liveClaims() {
        return inside.stream()
                .filter(SafetyMonitor.Hold::isLive)
                .map(SafetyMonitor.Hold::claim)
                .toList();
    }

    /** Records the token of a hold that entered: the newest of its kind if larger. */
    void entered(SafetyMonitor.Claim claim) {
        maxToken = Math.max(maxToken, claim.token());
        if (!shares(claim)) {
            maxExclusiveToken = Math.max(maxExclusiveToken, claim.token());
        }
    }

    /**
     * Marks the live holds inside that {@code ended} picks as ended from outside by {@code cause} (they stay inside
     * until they exit); returns how many.
     */
    int endFromOutside(Predicate<SafetyMonitor.Hold> ended, String cause) {
        int count = 0;
        for (SafetyMonitor.Hold hold : inside) {
            if (hold.isLive() && ended.test(hold)) {
                hold.endedBy = cause;
                count++;
            }
        }
        return count;
    }

    private static boolean shares(SafetyMonitor.Claim claim) {
        return claim.mode().sharesWith(claim.mode());
    }
}
