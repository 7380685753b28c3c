package dev.zklock.recipes.test.history;

import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pairs each invocation with its outcome: the next {@code ok}, {@code fail} or {@code info} of the same process,
 * operation and key (a process's operations on one key are sequential; events of other kinds, such as a listener's
 * {@code state} lines, may come between). An invocation with no outcome is an {@code info} open to the end.
 *
 * <p>Stateless and thread-safe.
 */
final class Operations {
    private Operations() {}

    /**
     * Returns the operations among {@code fs}, in the order of their invocations.
     *
     * @throws IllegalArgumentException naming the event if an outcome has no invocation before it
     */
    static List<Op> of(History history, Set<String> fs) {
        Map<String, Deque<Integer>> open = new HashMap<>();
        List<HistoryEvent> invokes = new ArrayList<>();
        List<HistoryEvent> outcomes = new ArrayList<>();
        for (HistoryEvent event : history.events()) {
            if (!fs.contains(event.f())) {
                continue;
            }
            String slot = event.process() + '\t' + event.f() + '\t' + event.key();
            if (event.type() == Type.INVOKE) {
                open.computeIfAbsent(slot, s -> new ArrayDeque<>()).addLast(invokes.size());
                invokes.add(event);
                outcomes.add(null);
                continue;
            }
            Deque<Integer> pending = open.get(slot);
            if (pending == null || pending.isEmpty()) {
                throw new IllegalArgumentException("outcome without an invocation: '" + event.toLine() + "'");
            }
            outcomes.set(pending.removeFirst(), event);
        }
        List<Op> ops = new ArrayList<>(invokes.size());
        for (int i = 0; i < invokes.size(); i++) {
            HistoryEvent invoke = invokes.get(i);
            HistoryEvent outcome = outcomes.get(i);
            if (outcome == null) {
                ops.add(new Op(
                        invoke.process(),
                        invoke.f(),
                        invoke.key(),
                        Type.INFO,
                        invoke.nanos(),
                        Long.MAX_VALUE,
                        Long.MAX_VALUE,
                        invoke.value(),
                        HistoryEvent.NONE));
            } else {
                long end = outcome.type() == Type.INFO ? Long.MAX_VALUE : outcome.nanos();
                ops.add(new Op(
                        invoke.process(),
                        invoke.f(),
                        invoke.key(),
                        outcome.type(),
                        invoke.nanos(),
                        end,
                        outcome.nanos(),
                        invoke.value(),
                        outcome.value()));
            }
        }
        return ops;
    }
}
