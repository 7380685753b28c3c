package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a stranger's delete explains an overlap, judged from the operations' windows alone: whether the key's holds
 * have an order in which the holder was granted, then the delete broke its hold, and every hold of another process in
 * a conflicting mode was over before that grant or granted after the delete, each grant at a point of its acquire's
 * window and the delete at a point of its own.
 *
 * <p>So a grant that came back after the delete's reply is explained when it may have been decided before the delete:
 * a hold passed before it to a thread that ran late, a client that heard late. A waiter granted on a node deleted while
 * another process held the lock is not: the lock was not free before the delete. A hold counts as over at the
 * invocation of its release, or earlier from outside: another stranger's delete on the key after its acquire was
 * invoked (the history does not say which hold a node was), its holder's report of IN_DOUBT or LOST, its session seen
 * expired, or a pause of its client longer than the session. A semaphore's leases are not judged here.
 *
 * <p>Stateless and thread-safe. O(deletes on the key x holds of the key) per hold judged.
 */
final class DeleteOrder {
    private final Timeline timeline;
    private final long sessionNanos;

    DeleteOrder(Timeline timeline, long sessionNanos) {
        this.timeline = timeline;
        this.sessionNanos = sessionNanos;
    }

    /** The first stranger's delete after which {@code holder} may have held beside the later grants of {@code holds}. */
    Optional<FaultWindow> explaining(Hold holder, List<Hold> holds) {
        for (FaultWindow delete : timeline.strangerDeletes(holder.key())) {
            if (delete.end() >= holder.invoked()
                    && delete.start() <= holder.end()
                    && brokeAfterGrant(holder, delete, holds)) {
                return Optional.of(delete);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether some point {@code d} of the delete's window admits a grant {@code g <= d} of the holder: every conflicting
     * hold granted (its ok) before {@code d} is over by {@code g}, the others may be granted after {@code d}. The latest
     * {@code d} that leaves a hold out is just before that hold's ok, so those oks and the window's end are the only
     * points to try.
     */
    private boolean brokeAfterGrant(Hold holder, FaultWindow delete, List<Hold> holds) {
        long from = Math.max(delete.start(), holder.invoked());
        List<Long> points = new ArrayList<>();
        points.add(delete.end());
        for (Hold other : holds) {
            if (holder.conflictsWith(other) && other.grant() >= from && other.grant() < delete.end()) {
                points.add(other.grant());
            }
        }
        for (long point : points) {
            long grant = holder.invoked();
            for (Hold other : holds) {
                if (other.grant() < point && other.end() > holder.invoked() && holder.conflictsWith(other)) {
                    grant = Math.max(grant, overAt(other, delete));
                }
            }
            if (grant <= point && grant <= holder.grant()) {
                return true;
            }
        }
        return false;
    }

    /** The earliest point {@code hold} may have been over, by anything but {@code excluded}. */
    private long overAt(Hold hold, FaultWindow excluded) {
        long over = hold.end();
        for (FaultWindow delete : timeline.strangerDeletes(hold.key())) {
            if (delete != excluded && delete.end() >= hold.invoked() && delete.start() < over) {
                over = Math.min(over, Math.max(delete.start(), hold.invoked()));
            }
        }
        String client = hold.clientId();
        long until = over;
        over = timeline.told(hold.process(), hold.key(), hold.invoked(), until)
                .map(HistoryEvent::nanos)
                .orElse(over);
        over = Math.min(
                over,
                timeline.expiry(client, hold.process(), hold.grant(), hold.invoked(), until)
                        .orElse(over));
        long paused = timeline.longPause(client, hold.invoked(), until, sessionNanos)
                .map(w -> Math.max(w.start(), hold.invoked()))
                .orElse(over);
        return Math.min(over, paused);
    }
}
