package dev.zklock.recipes.test.history;

import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks the fenced set of each lock path (Jepsen's set guarded by the lock's revision, written through a
 * {@link FencedStore}): every element whose {@code add} was acknowledged ({@code ok}) is in the final
 * {@code read-set} (else it is <em>lost</em>), no element is there twice (<em>duplicated</em>), and no element the
 * store refused ({@code fail}) is there; the refused adds are counted as the late writes fencing stopped. An
 * {@code info} add may or may not be in the set.
 *
 * <p>The add's invocation value is {@code <element> <token>}; the final read's {@code ok} value the elements,
 * comma-separated ({@code -} for none); the last read of a key counts. Linear in the history.
 *
 * <p>Stateless and thread-safe; {@link #check} is a pure function of the history.
 */
public final class FencedSetChecker {
    private FencedSetChecker() {}

    /**
     * Checks every key with adds or a final read.
     *
     * @param history the history
     * @return the result per key, in key order
     * @throws IllegalArgumentException naming the event if an outcome has no invocation
     */
    public static Map<String, FencedSetResult> check(History history) {
        Map<String, List<Op>> adds = new TreeMap<>();
        for (Op op : Operations.of(history, Set.of("add"))) {
            adds.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        Map<String, HistoryEvent> reads = new HashMap<>();
        for (HistoryEvent event : history.withF("read-set")) {
            if (event.type() == Type.OK) {
                reads.put(event.key(), event);
            }
        }
        reads.keySet().forEach(key -> adds.putIfAbsent(key, List.of()));
        Map<String, FencedSetResult> results = new TreeMap<>();
        adds.forEach((key, ops) -> results.put(key, check(key, ops, Optional.ofNullable(reads.get(key)))));
        return results;
    }

    private static FencedSetResult check(String key, List<Op> ops, Optional<HistoryEvent> read) {
        List<String> stored = read.map(e -> elementsOf(e.value())).orElse(List.of());
        Set<String> seen = new LinkedHashSet<>();
        Set<String> duplicated = new LinkedHashSet<>();
        for (String element : stored) {
            if (!seen.add(element)) {
                duplicated.add(element);
            }
        }
        List<String> lost = new ArrayList<>();
        List<String> refusedButStored = new ArrayList<>();
        int acknowledged = 0;
        int refused = 0;
        int unknown = 0;
        for (Op op : ops) {
            String element = op.element();
            if (op.isOk()) {
                acknowledged++;
                if (read.isPresent() && !seen.contains(element)) {
                    lost.add(element);
                }
            } else if (op.isFail()) {
                refused++;
                if (seen.contains(element)) {
                    refusedButStored.add(element);
                }
            } else {
                unknown++;
            }
        }
        return new FencedSetResult(
                key, acknowledged, refused, unknown, read.isPresent(), lost, List.copyOf(duplicated), refusedButStored);
    }

    private static List<String> elementsOf(String value) {
        if (value.equals(HistoryEvent.NONE)) {
            return List.of();
        }
        return List.of(value.split(",", -1));
    }
}
