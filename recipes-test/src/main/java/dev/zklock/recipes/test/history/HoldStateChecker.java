package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Checks that holders are honest about their holds, per hold.
 *
 * <ol>
 *   <li><b>HELD after expiry</b>: once the observer saw the session of the hold end ({@code session ... expired},
 *       matched by id to the session the holder recorded at its grant, {@link Timeline#expiry}), how long the holder's reported
 *       state stayed HELD (from the grant until a {@code state} line says otherwise, or again after a {@code state}
 *       HELD) before the hold ended (its release invoked, or the end of the history); time its client spent in a
 *       {@code pause-client} window is not counted, as a stopped JVM says nothing, nor the time after it until the
 *       holder's thread writes its next line (a thread let go says nothing until it runs, and a careful holder asks
 *       its hold's state before it acts: the worker writes the answer when it changes). Target 0.
 *   <li><b>IN_DOUBT before another grant</b>: when a {@code cut} or {@code cut-one-way} naming the holder's client
 *       starts during the hold, the first conflicting hold of another client granted after the cut starts and before
 *       this hold ends must find this holder's last reported state IN_DOUBT or LOST. A semaphore's leases are not
 *       checked this way.
 *   <li><b>Granted while suspended</b>: a grant decided after the holder's client recorded its connection SUSPENDED
 *       ({@code <client> info connection SUSPENDED}) and before it recorded RECONNECTED, LOST or CONNECTED
 *       ({@link #grantedWhileSuspended}). Target none.
 * </ol>
 *
 * <p>Cost: O(holds x (faults + states of the holder + holds of the key)).
 *
 * <p>Stateless and thread-safe; {@link #check} is a pure function of the history.
 */
public final class HoldStateChecker {
    private HoldStateChecker() {}

    /**
     * Checks every hold of {@code history}.
     *
     * @param history the history
     * @return the result per lock path with holds, in path order
     * @throws IllegalArgumentException naming the event if an outcome has no invocation
     */
    public static Map<String, HoldStateResult> check(History history) {
        Timeline timeline = Timeline.of(history);
        Map<String, List<Hold>> byKey = new TreeMap<>();
        for (Hold hold : Holds.of(history)) {
            byKey.computeIfAbsent(hold.key(), k -> new ArrayList<>()).add(hold);
        }
        Map<String, HoldStateResult> results = new TreeMap<>();
        byKey.forEach((key, holds) -> {
            List<DishonestHold> dishonest = new ArrayList<>();
            for (Hold hold : holds) {
                long end = Math.min(hold.end(), history.end());
                long held = heldAfterExpiry(timeline, hold, end);
                Optional<Hold> granted = grantedWhileHeld(timeline, hold, holds);
                boolean suspended = grantedWhileSuspended(timeline, hold, holds);
                if (held > 0 || granted.isPresent() || suspended) {
                    dishonest.add(new DishonestHold(hold, held, granted, suspended));
                }
            }
            results.put(key, new HoldStateResult(key, holds.size(), dishonest));
        });
        return results;
    }

    private static long heldAfterExpiry(Timeline timeline, Hold hold, long end) {
        OptionalLong expiry = timeline.expiry(hold.clientId(), hold.process(), hold.grant(), hold.grant(), end);
        if (expiry.isEmpty()) {
            return 0;
        }
        long from = expiry.getAsLong();
        boolean held = isHeldAt(timeline, hold, from);
        long heldNanos = 0;
        long since = from;
        for (HistoryEvent state : timeline.states(hold.process(), hold.key())) {
            if (state.nanos() <= from || state.nanos() > end) {
                continue;
            }
            if (held) {
                heldNanos += state.nanos()
                        - since
                        - timeline.silentNanos(hold.clientId(), hold.process(), since, state.nanos());
            }
            held = state.value().equals("HELD");
            since = state.nanos();
        }
        if (held) {
            heldNanos += end - since - timeline.silentNanos(hold.clientId(), hold.process(), since, end);
        }
        return Math.max(0, heldNanos);
    }

    /**
     * Whether the grant was decided while the holder's client had said its connection was suspended: granted within a
     * suspension its client recorded, and decided after the suspension began, which the history shows when the
     * acquire was invoked after it, or when another hold of the same client and key was released after it and before
     * this grant (a local pass is decided at the release before it). Curator says SUSPENDED to its listeners only
     * after its client reads as disconnected, and says RECONNECTED before a hold in doubt can be checked again, so a
     * lock that admits only a HELD node on a connected client never grants there.
     */
    private static boolean grantedWhileSuspended(Timeline timeline, Hold hold, List<Hold> holds) {
        OptionalLong start = timeline.suspendedSince(hold.clientId(), hold.grant());
        if (start.isEmpty()) {
            return false;
        }
        long since = start.getAsLong();
        if (hold.invoked() > since) {
            return true;
        }
        return holds.stream()
                .anyMatch(other -> other != hold
                        && other.clientId().equals(hold.clientId())
                        && other.end() > since
                        && other.end() < hold.grant());
    }

    /** Whether the holder's last reported state at {@code time} is HELD (a hold is HELD from its grant). */
    static boolean isHeldAt(Timeline timeline, Hold hold, long time) {
        boolean held = true;
        for (HistoryEvent state : timeline.states(hold.process(), hold.key())) {
            if (state.nanos() >= hold.grant() && state.nanos() <= time) {
                held = state.value().equals("HELD");
            }
        }
        return held;
    }

    private static Optional<Hold> grantedWhileHeld(Timeline timeline, Hold hold, List<Hold> holds) {
        for (FaultWindow cut : timeline.faults()) {
            boolean isCut = cut.kind().equals("cut") || cut.kind().equals("cut-one-way");
            if (!isCut || !cut.names(hold.clientId()) || cut.start() < hold.grant() || cut.start() >= hold.end()) {
                continue;
            }
            Optional<Hold> next = holds.stream()
                    .filter(other -> !other.clientId().equals(hold.clientId()) && other.conflictsWith(hold))
                    .filter(other -> other.grant() > cut.start() && other.grant() < hold.end())
                    .findFirst();
            if (next.isPresent() && isHeldAt(timeline, hold, next.get().grant())) {
                return next;
            }
        }
        return Optional.empty();
    }
}
