package dev.zklock.recipes.test;

import dev.zklock.recipes.test.SafetyMonitor.Claim;
import dev.zklock.recipes.test.SafetyMonitor.Hold;
import dev.zklock.recipes.test.SafetyMonitor.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The overlaps a {@link SafetyMonitor} found: two conflicting holds of one path inside at once (or leases beyond their
 * count), whatever their nodes' state, each classified by its cause. An overlap is explained when one of the two holds
 * was ended from outside after its grant: the earlier one while it was inside (its session ended, or a stranger deleted
 * its node), or the entering one as it entered (its grant decided before the end, {@link LostGrants#duringEnd}: the
 * holder beside it may have taken the lock because of that end, and entered first), and neither was lost from its
 * grant; any other is a violation. Explained overlaps are timed from the entering hold's grant until either hold exits.
 * Guarded by the monitor's lock.
 */
final class Overlaps {
    private static final int FIRST = 20;

    /** An explained overlap still under way: {@code other} is null for leases beyond their count. */
    private record Open(Hold entering, Hold other, long startNanos) {
        boolean involves(Hold hold) {
            return entering == hold || other == hold;
        }
    }

    private final List<Open> open = new ArrayList<>();
    private final List<String> firstExplained = new ArrayList<>();
    private long violations;
    private long explained;
    private long longestNanos;

    /**
     * Counts every overlap of {@code entering} with the holds {@code inside} its path (exited holds are not inside),
     * and leases beyond their count; returns the texts of the violations among them.
     */
    List<String> check(List<Hold> inside, Hold entering) {
        Claim claim = entering.claim();
        List<String> found = new ArrayList<>();
        List<Hold> leases = new ArrayList<>();
        for (Hold other : inside) {
            if (!other.owner().equals(entering.owner())
                    && !claim.mode().sharesWith(other.claim().mode())) {
                String cause = violationCause(entering, other);
                String text = String.format(
                        "overlap on %s (%s): %s (%s) entered while %s (%s) held it",
                        claim.lockPath(),
                        cause != null ? cause : endedOne(entering, other),
                        entering.owner(),
                        claim,
                        other.owner(),
                        other.claim());
                count(cause, text, entering, other, found);
            }
            if (other.claim().mode() == Mode.LEASE) {
                leases.add(other);
            }
        }
        if (claim.mode() == Mode.LEASE && leases.size() + 1 > claim.leases()) {
            String cause = leaseCause(entering, leases);
            String text = String.format(
                    "too many leases on %s (%s): %s (%s) entered as lease %d of at most %d",
                    claim.lockPath(),
                    cause != null ? cause : ended(leases) + " of them ended from outside",
                    entering.owner(),
                    claim,
                    leases.size() + 1,
                    claim.leases());
            count(cause, text, entering, null, found);
        }
        return found;
    }

    /** Ends the explained overlaps {@code hold} takes part in, at {@code nowNanos}. */
    void exited(Hold hold, long nowNanos) {
        open.removeIf(overlap -> {
            if (overlap.involves(hold)) {
                longestNanos = Math.max(longestNanos, nowNanos - overlap.startNanos);
                return true;
            }
            return false;
        });
    }

    long violations() {
        return violations;
    }

    long explained() {
        return explained;
    }

    /** The longest explained overlap, those still under way counted until {@code nowNanos}. */
    Duration longestExplained(long nowNanos) {
        long longest = longestNanos;
        for (Open overlap : open) {
            longest = Math.max(longest, nowNanos - overlap.startNanos);
        }
        return Duration.ofNanos(longest);
    }

    List<String> firstExplained() {
        return List.copyOf(firstExplained);
    }

    private void count(String cause, String text, Hold entering, Hold other, List<String> found) {
        if (cause != null) {
            violations++;
            found.add(text);
            return;
        }
        explained++;
        open.add(new Open(entering, other, System.nanoTime()));
        if (firstExplained.size() < FIRST) {
            firstExplained.add(text);
        }
    }

    /**
     * Returns why the overlap of {@code entering} with {@code other} is a violation, or null if it is explained: the
     * entering hold is lost from its grant, or the other is, or both are live (neither ended from outside).
     */
    static String violationCause(Hold entering, Hold other) {
        if (entering.grantedLost != null) {
            return entering.owner() + " " + entering.grantedLost;
        }
        if (other.grantedLost != null) {
            return other.owner() + " " + other.grantedLost;
        }
        return other.endedBy == null && entering.endedBy == null ? "both live" : null;
    }

    /** Names the hold of an explained overlap that was ended from outside, and how: the one inside first. */
    private static String endedOne(Hold entering, Hold other) {
        Hold ended = other.endedBy != null ? other : entering;
        return ended.owner() + ": " + ended.endedBy;
    }

    /**
     * Returns why a lease beyond the count is a violation, or null if it is explained: the entering lease is lost from
     * its grant, or the leases inside that were not ended from outside (lost from their grant included) fill the count.
     */
    static String leaseCause(Hold entering, List<Hold> leases) {
        if (entering.grantedLost != null) {
            return entering.owner() + " " + entering.grantedLost;
        }
        long live = leases.size() - ended(leases);
        return live + 1 > entering.claim().leases() ? live + " live leases beside it" : null;
    }

    /** Counts the leases ended from outside after a clean grant. */
    private static long ended(List<Hold> leases) {
        return leases.stream()
                .filter(lease -> lease.grantedLost == null && lease.endedBy != null)
                .count();
    }
}
