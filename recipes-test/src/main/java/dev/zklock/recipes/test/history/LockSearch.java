package dev.zklock.recipes.test.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Wing and Gong's linearizability search with Lowe's memoization, over the acquires and releases of one lock.
 *
 * <p>The entries (each operation's call and, for an {@code ok}, its return) form a list in time order. The search
 * walks it: at a call it tries to apply the operation to the model; if that works and the configuration (model state,
 * set of operations applied) is new, it takes both entries out of the list, pushes the operation and starts again
 * from the head; at a return of an operation not yet applied it must undo the last operation pushed and try the next
 * call after it. The history is linearizable when every {@code ok} operation is applied; an {@code info} operation
 * has no return entry, so it may be applied at any point after its call or never. {@code fail} operations are not
 * given. Every configuration is searched once (Lowe), so the cost is bounded by the configurations visited; past
 * {@code maxConfigurations} the answer is {@link Verdict#UNKNOWN}.
 *
 * <p>A configuration is remembered by the model state and a 128-bit Zobrist fingerprint of the set of operations
 * applied (the exclusive or of two random longs per operation, kept as operations are applied and taken back), so
 * remembering one costs O(processes), not O(operations). Two different sets share a fingerprint with probability
 * below {@code configurations^2 / 2^129}; such a collision could only prune a branch of the search, so it could turn
 * a valid answer invalid, never an invalid one valid.
 *
 * <p>The model: per process and mode, the number of holds. An acquire fits when no other process holds a conflicting
 * mode ({@link Modes#conflict}), and for a lease when fewer than {@code leases} leases are held in all; a process's
 * own holds never block it (re-entry, a writer's downgrade). A release fits when its process holds that mode.
 *
 * <p>Not thread-safe: one search per instance ({@link #run} once), confined to one thread.
 */
final class LockSearch {
    private static final List<String> MODES = List.of("exclusive", "read", "write", "lease");

    private final List<Op> ops;
    private final int leases;
    private final int[] processOf;
    private final int[] modeOf;
    private final List<String> names = new ArrayList<>();
    private final int processes;
    private final long[] zobristLow;
    private final long[] zobristHigh;

    private final Set<Config> seen = new HashSet<>();
    private final Deque<SearchEntry> stack = new ArrayDeque<>();
    private final Deque<int[]> states = new ArrayDeque<>();
    private int[] state;
    private long appliedLow;
    private long appliedHigh;
    private long configurations;
    private int deepest = -1;
    private int blockedOp;
    private int[] blockedState;

    record Outcome(Verdict verdict, long configurations, String blocked) {}

    LockSearch(List<Op> ops, int leases) {
        this.ops = ops;
        this.leases = leases;
        Map<String, Integer> index = new HashMap<>();
        processOf = new int[ops.size()];
        modeOf = new int[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            processOf[i] = index.computeIfAbsent(ops.get(i).process(), p -> {
                names.add(p);
                return names.size() - 1;
            });
            modeOf[i] = MODES.indexOf(ops.get(i).mode());
        }
        processes = index.size();
        state = new int[processes * MODES.size()];
        SplittableRandom random = new SplittableRandom(ops.size());
        zobristLow = random.longs(ops.size()).toArray();
        zobristHigh = random.longs(ops.size()).toArray();
    }

    Outcome run(long maxConfigurations) {
        SearchEntry head = SearchEntry.listOf(ops);
        int required = (int) ops.stream().filter(Op::isOk).count();
        SearchEntry entry = head.next;
        while (required > 0) {
            if (entry != null && entry.call) {
                if (!apply(entry)) {
                    entry = entry.next;
                    continue;
                }
                if (configurations > maxConfigurations) {
                    return new Outcome(Verdict.UNKNOWN, maxConfigurations, "");
                }
                required -= ops.get(entry.op).isOk() ? 1 : 0;
                entry = head.next;
                continue;
            }
            if (entry != null && stack.size() > deepest) {
                deepest = stack.size();
                blockedOp = entry.op;
                blockedState = state;
            }
            if (stack.isEmpty()) {
                String detail = blockedState == null ? "" : describe(blockedOp, blockedState);
                return new Outcome(Verdict.INVALID, configurations, detail);
            }
            SearchEntry undone = undo();
            required += ops.get(undone.op).isOk() ? 1 : 0;
            entry = undone.next;
        }
        return new Outcome(Verdict.VALID, configurations, "");
    }

    /** Applies the call's operation if the model takes it and the configuration is new; counts the configuration. */
    private boolean apply(SearchEntry call) {
        int[] next = step(state, call.op);
        if (next == null) {
            return false;
        }
        long low = appliedLow ^ zobristLow[call.op];
        long high = appliedHigh ^ zobristHigh[call.op];
        if (!seen.add(new Config(next, low, high))) {
            return false;
        }
        configurations++;
        stack.push(call);
        states.push(state);
        state = next;
        appliedLow = low;
        appliedHigh = high;
        call.lift();
        return true;
    }

    /** Takes back the operation applied last and returns its call. */
    private SearchEntry undo() {
        SearchEntry undone = stack.pop();
        state = states.pop();
        appliedLow ^= zobristLow[undone.op];
        appliedHigh ^= zobristHigh[undone.op];
        undone.unlift();
        return undone;
    }

    /** The state after op {@code i}, or null if the model refuses it. */
    private int[] step(int[] state, int i) {
        int p = processOf[i];
        int m = modeOf[i];
        int slot = p * MODES.size() + m;
        int[] next;
        if (ops.get(i).f().equals("release")) {
            if (state[slot] == 0) {
                return null;
            }
            next = state.clone();
            next[slot]--;
            return next;
        }
        for (int q = 0; q < processes; q++) {
            for (int n = 0; n < MODES.size(); n++) {
                int held = state[q * MODES.size() + n];
                if (held == 0) {
                    continue;
                }
                boolean full = n == 3 && m == 3 && leasesHeld(state) >= leases;
                if (full || (q != p && Modes.conflict(MODES.get(m), MODES.get(n)))) {
                    return null;
                }
            }
        }
        next = state.clone();
        next[slot]++;
        return next;
    }

    private int leasesHeld(int[] state) {
        int held = 0;
        for (int q = 0; q < processes; q++) {
            held += state[q * MODES.size() + 3];
        }
        return held;
    }

    private String describe(int i, int[] state) {
        Op op = ops.get(i);
        List<String> holders = new ArrayList<>();
        for (int k = 0; k < state.length; k++) {
            if (state[k] > 0) {
                holders.add(names.get(k / MODES.size()) + " " + MODES.get(k % MODES.size()));
            }
        }
        return op.process() + "'s " + op.f() + " " + op.mode() + " [" + op.start() + ", " + op.end()
                + "] fits no order; held then: " + (holders.isEmpty() ? "nothing" : String.join(", ", holders));
    }

    /** A configuration of the search: the model state and the fingerprint of the set of operations applied. */
    private record Config(int[] state, long appliedLow, long appliedHigh) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Config c
                    && appliedLow == c.appliedLow
                    && appliedHigh == c.appliedHigh
                    && Arrays.equals(state, c.state);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(state) + Long.hashCode(appliedLow);
        }

        @Override
        public String toString() {
            return Arrays.toString(state) + " " + Long.toHexString(appliedHigh) + Long.toHexString(appliedLow);
        }
    }
}
