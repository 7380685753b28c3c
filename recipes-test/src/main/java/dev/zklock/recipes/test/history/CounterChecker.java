package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Counts the updates lost by the unfenced counter of each lock path ({@link FileCounter}, read-then-write inside the
 * critical section, starting at 0): the final value against the number of {@code ok} increments. When two holders are
 * inside at once, both may read one value and write the same next one, or a late holder may write back a value older
 * than the newest, and increments disappear. Under pauses longer than the session timeout that is expected, for any
 * unfenced lock: the honest number, reported, not hidden.
 *
 * <p>An increment's {@code ok} value is {@code <read> <written>}. Without a final value the checker counts the
 * {@code ok} increments that wrote a value already written by another, a lower bound of the loss. Linear in the
 * history.
 *
 * <p>Stateless and thread-safe; the checks are pure functions of their arguments.
 */
public final class CounterChecker {
    private CounterChecker() {}

    /**
     * Checks every counter of {@code history} from the history alone.
     *
     * @param history the history
     * @return the result per key, in key order
     * @throws IllegalArgumentException naming the event if an {@code ok} value is not two longs
     */
    public static Map<String, CounterResult> check(History history) {
        return check(history, Map.of());
    }

    /**
     * Checks every counter of {@code history} against the final values read after the run.
     *
     * @param history the history
     * @param finalValues the counter's final value per key; a key missing here is checked from the history alone
     * @return the result per key, in key order
     * @throws IllegalArgumentException naming the event if an {@code ok} value is not two longs
     */
    public static Map<String, CounterResult> check(History history, Map<String, Long> finalValues) {
        Map<String, List<Op>> byKey = new TreeMap<>();
        for (Op op : Operations.of(history, Set.of("counter"))) {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        Map<String, CounterResult> results = new TreeMap<>();
        byKey.forEach((key, ops) -> results.put(key, check(key, ops, finalValues.get(key))));
        return results;
    }

    private static CounterResult check(String key, List<Op> ops, Long finalValue) {
        int increments = 0;
        int unknown = 0;
        Set<Long> written = new HashSet<>();
        for (Op op : ops) {
            if (op.isOk()) {
                increments++;
                written.add(writtenBy(op));
            } else if (op.isInfo()) {
                unknown++;
            }
        }
        int repeated = increments - written.size();
        if (finalValue == null) {
            return new CounterResult(key, increments, unknown, repeated, OptionalLong.empty(), repeated);
        }
        return new CounterResult(
                key, increments, unknown, repeated, OptionalLong.of(finalValue), Math.max(0, increments - finalValue));
    }

    private static long writtenBy(Op op) {
        String[] parts = op.value().split(" ");
        try {
            if (parts.length == 2) {
                Long.parseLong(parts[0]);
                return Long.parseLong(parts[1]);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "counter value '" + op.value() + "' of " + op.process() + " on " + op.key()
                            + " is not <read> <written>",
                    e);
        }
        throw new IllegalArgumentException("counter value '" + op.value() + "' of " + op.process() + " on " + op.key()
                + " is not <read> <written>");
    }
}
