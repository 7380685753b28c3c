package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The direct count of overlaps on one key: a sweep over the holds in grant order, each new hold against the holds
 * still open; each overlap classified explained or not ({@link Overlap}). O(holds x holds open at once).
 *
 * <p>Stateless and thread-safe.
 */
final class OverlapFinder {
    private final Timeline timeline;
    private final long sessionNanos;
    private final DeleteOrder deletes;

    OverlapFinder(Timeline timeline, long sessionNanos) {
        this.timeline = timeline;
        this.sessionNanos = sessionNanos;
        this.deletes = new DeleteOrder(timeline, sessionNanos);
    }

    /** The overlaps among {@code holds} of one key, in grant order; {@code leases} counts a semaphore's leases. */
    List<Overlap> find(List<Hold> holds, int leases) {
        List<Overlap> overlaps = new ArrayList<>();
        List<Hold> open = new ArrayList<>();
        for (Hold hold : holds) {
            open.removeIf(h -> h.end() <= hold.grant());
            if (hold.mode().equals(Modes.LEASE)) {
                long held =
                        open.stream().filter(h -> h.mode().equals(Modes.LEASE)).count();
                if (held >= leases) {
                    overlaps.add(leaseOverlap(open, hold, holds));
                }
            } else {
                for (Hold other : open) {
                    if (other.conflictsWith(hold)) {
                        overlaps.add(overlap(other, hold, holds));
                    }
                }
            }
            open.add(hold);
        }
        return overlaps;
    }

    private Overlap leaseOverlap(List<Hold> open, Hold hold, List<Hold> holds) {
        Overlap chosen = null;
        for (Hold other : open) {
            if (other.mode().equals(Modes.LEASE)) {
                Overlap candidate = overlap(other, hold, holds);
                if (chosen == null || (candidate.isExplained() && !chosen.isExplained())) {
                    chosen = candidate;
                }
            }
        }
        return chosen;
    }

    private Overlap overlap(Hold first, Hold second, List<Hold> holds) {
        long to = Math.min(first.end(), second.end());
        Optional<String> why = explain(first, second, to, holds);
        if (why.isEmpty()) {
            why = explain(second, first, to, holds);
        }
        return new Overlap(first, second, second.grant(), to, why);
    }

    /**
     * Why {@code holder} may be inside beside {@code other} until {@code to}, if anything explains it. A long pause
     * counts from the acquire's invocation: a JVM stopped after the lock was granted and before the grant was recorded
     * holds from before the pause, and the history cannot tell that apart from a grant after it.
     */
    private Optional<String> explain(Hold holder, Hold other, long to, List<Hold> holds) {
        String client = holder.clientId();
        Optional<String> why = timeline.longPause(client, holder.invoked(), to, sessionNanos)
                .map(w -> client + " paused " + (w.end() - w.start()) / 1_000_000 + " ms, longer than the session"
                        + (w.end() < holder.grant() ? ", while its acquire was in flight" : ""));
        if (why.isEmpty()) {
            why = boxed(timeline.expiry(client, holder.process(), holder.grant(), holder.grant(), to))
                    .map(t -> "session of " + client + " seen expired at " + t);
        }
        if (why.isEmpty()) {
            why = timeline.told(holder.process(), holder.key(), holder.grant(), other.grant())
                    .map(e -> holder.process() + " told " + e.value() + " at " + e.nanos());
        }
        if (why.isEmpty()) {
            Optional<FaultWindow> delete = holder.mode().equals(Modes.LEASE)
                    ? timeline.strangerDelete(holder.key(), holder.grant(), to)
                    : deletes.explaining(holder, holds);
            why = delete.map(w -> "stranger deleted " + w.targets() + " at " + w.start());
        }
        return why;
    }

    private static Optional<Long> boxed(java.util.OptionalLong value) {
        return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
    }
}
