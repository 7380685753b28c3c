package dev.zklock.recipes.test.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks that locks recover and acquires return in bounded time.
 *
 * <ol>
 *   <li><b>Heal to grant</b>: after each fault heals (the nemesis's {@code ok}), every lock path that has an acquire
 *       waiting in the window grants some acquire ({@code ok}) within {@code sessionTimeout + 2 s}. A heal is judged
 *       only when no other fault is active in that window (faults that overlap are judged by the last to heal), and
 *       only when the history goes on past the window or a grant came.
 *   <li><b>Acquire returns</b>: every acquire (all are taken for timed ones) has an outcome ({@code ok}, {@code fail}
 *       or {@code info}) within {@code acquireTimeout + requestTimeout} of its invocation, its client's pauses not
 *       counted (a stopped JVM cannot return). An acquire with no outcome is late once the history has gone on past
 *       its bound.
 * </ol>
 *
 * <p>Cost: O(faults x operations + operations x faults).
 *
 * <p>Immutable and thread-safe; {@link #check} is a pure function of the history.
 */
public final class LivenessChecker {
    private static final long HEAL_SLACK_NANOS = Duration.ofSeconds(2).toNanos();

    private final long healBound;
    private final long acquireBound;

    private LivenessChecker(long healBound, long acquireBound) {
        this.healBound = healBound;
        this.acquireBound = acquireBound;
    }

    /**
     * Returns a checker for clients with these timeouts.
     *
     * @param sessionTimeout the clients' session timeout
     * @param acquireTimeout the timeout every acquire was given
     * @param requestTimeout the clients' request timeout
     * @return the checker
     * @throws IllegalArgumentException naming the value if a timeout is negative
     */
    public static LivenessChecker create(Duration sessionTimeout, Duration acquireTimeout, Duration requestTimeout) {
        requireNotNegative("session timeout", sessionTimeout);
        requireNotNegative("acquire timeout", acquireTimeout);
        requireNotNegative("request timeout", requestTimeout);
        return new LivenessChecker(
                sessionTimeout.toNanos() + HEAL_SLACK_NANOS, acquireTimeout.toNanos() + requestTimeout.toNanos());
    }

    /**
     * Checks both bounds.
     *
     * @param history the history
     * @return the violations, in time order
     * @throws IllegalArgumentException naming the event if an outcome has no invocation
     */
    public List<LivenessViolation> check(History history) {
        List<Op> acquires = Operations.of(history, Set.of("acquire"));
        Timeline timeline = Timeline.of(history);
        List<LivenessViolation> violations = new ArrayList<>();
        Set<String> keys = new TreeSet<>();
        acquires.forEach(op -> keys.add(op.key()));
        for (FaultWindow fault : timeline.faults()) {
            if (fault.isHealed() && isQuietAfter(timeline, fault)) {
                for (String key : keys) {
                    checkHeal(history, fault, key, acquires, violations);
                }
            }
        }
        for (Op op : acquires) {
            long returned = Math.min(op.returned(), history.end());
            long waited = returned - op.start() - timeline.pausedNanos(op.clientId(), op.start(), returned);
            if (waited > acquireBound) {
                String what = op.returned() == Long.MAX_VALUE ? "acquire never returned" : "acquire returned late";
                violations.add(new LivenessViolation(op.key(), op.process(), what, op.start(), returned, acquireBound));
            }
        }
        violations.sort(Comparator.comparingLong(LivenessViolation::from));
        return violations;
    }

    private boolean isQuietAfter(Timeline timeline, FaultWindow healed) {
        long to = healed.end() + healBound;
        return timeline.faults().stream().noneMatch(other -> other != healed && other.meets(healed.end(), to));
    }

    private void checkHeal(
            History history, FaultWindow fault, String key, List<Op> acquires, List<LivenessViolation> violations) {
        long heal = fault.end();
        long deadline = heal + healBound;
        boolean waiting = acquires.stream()
                .anyMatch(op -> op.key().equals(key) && op.start() <= deadline && op.returned() > heal);
        if (!waiting) {
            return;
        }
        long grant = acquires.stream()
                .filter(op -> op.key().equals(key) && op.isOk() && op.end() >= heal)
                .mapToLong(Op::end)
                .min()
                .orElse(Long.MAX_VALUE);
        if (grant > deadline && (grant != Long.MAX_VALUE || history.end() > deadline)) {
            String what = "no grant within bound after " + fault.kind() + " healed";
            violations.add(
                    new LivenessViolation(key, "nemesis", what, heal, Math.min(grant, history.end()), healBound));
        }
    }

    private static void requireNotNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " " + value + " is negative");
        }
    }
}
