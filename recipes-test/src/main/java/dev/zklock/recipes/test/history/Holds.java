package dev.zklock.recipes.test.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The holds of a history: each {@code ok} acquire, ended by the next release its process invokes on the same key in
 * the same mode (the innermost hold first, as re-entry nests), whatever the release's outcome.
 *
 * <p>Stateless and thread-safe.
 */
final class Holds {
    private Holds() {}

    /** Returns the holds of every key, in grant order. */
    static List<Hold> of(History history) {
        return of(Operations.of(history, Set.of("acquire", "release")));
    }

    /** Returns the holds among {@code ops} (acquires and releases), in grant order. */
    static List<Hold> of(List<Op> ops) {
        List<Op> events = new ArrayList<>();
        for (Op op : ops) {
            if (op.f().equals("acquire") && op.isOk()) {
                events.add(op);
            } else if (op.f().equals("release")) {
                events.add(op);
            }
        }
        events.sort(Comparator.comparingLong(Holds::eventTime));
        Map<String, Deque<Integer>> open = new HashMap<>();
        List<Hold> holds = new ArrayList<>();
        for (Op op : events) {
            Modes.requireMode(op.mode(), op.key());
            String slot = op.process() + '\t' + op.key() + '\t' + op.mode();
            if (op.f().equals("acquire")) {
                open.computeIfAbsent(slot, s -> new ArrayDeque<>()).push(holds.size());
                holds.add(
                        new Hold(op.process(), op.key(), op.mode(), tokenOf(op), op.start(), op.end(), Long.MAX_VALUE));
            } else {
                Deque<Integer> pending = open.get(slot);
                if (pending != null && !pending.isEmpty()) {
                    int i = pending.pop();
                    Hold h = holds.get(i);
                    holds.set(
                            i, new Hold(h.process(), h.key(), h.mode(), h.token(), h.invoked(), h.grant(), op.start()));
                }
            }
        }
        return holds;
    }

    private static long eventTime(Op op) {
        return op.f().equals("acquire") ? op.end() : op.start();
    }

    /** The token of an acquire's ok value {@code <mode> <token>}, {@code -} for none. */
    static OptionalLong tokenOf(Op acquire) {
        String value = acquire.value();
        int space = value.indexOf(' ');
        String token = space < 0 ? HistoryEvent.NONE : value.substring(space + 1);
        if (token.equals(HistoryEvent.NONE)) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(token));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "token '" + token + "' of " + acquire.process() + "'s acquire on " + acquire.key()
                            + " is not a long",
                    e);
        }
    }
}
