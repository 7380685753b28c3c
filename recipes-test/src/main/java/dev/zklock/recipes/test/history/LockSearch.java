package dev.zklock.recipes.test.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * <p>The model: per process and mode, the number of holds. An acquire fits when no other process holds a conflicting
 * mode ({@link Modes#conflict}), and for a lease when fewer than {@code leases} leases are held in all; a process's
 * own holds never block it (re-entry, a writer's downgrade). A release fits when its process holds that mode.
 *
 * <p>Not thread-safe: one search per instance, confined to one thread.
 */
final class LockSearch {
    private static final List<String> MODES = List.of("exclusive", "read", "write", "lease");

    private final List<Op> ops;
    private final int leases;
    private final int[] processOf;
    private final int[] modeOf;
    private final List<String> names = new ArrayList<>();
    private final int processes;

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
    }

    Outcome run(long maxConfigurations) {
        SearchEntry head = entries();
        int required = (int) ops.stream().filter(Op::isOk).count();
        Set<Config> seen = new HashSet<>();
        Deque<SearchEntry> stack = new ArrayDeque<>();
        Deque<int[]> states = new ArrayDeque<>();
        BitSet applied = new BitSet(ops.size());
        int[] state = new int[processes * MODES.size()];
        long configurations = 0;
        int deepest = -1;
        String blocked = "";
        SearchEntry entry = head.next;
        while (required > 0) {
            if (entry != null && entry.call) {
                int[] next = step(state, entry.op);
                if (next != null) {
                    applied.set(entry.op);
                    if (seen.add(new Config(next, (BitSet) applied.clone()))) {
                        if (++configurations > maxConfigurations) {
                            return new Outcome(Verdict.UNKNOWN, configurations - 1, "");
                        }
                        stack.push(entry);
                        states.push(state);
                        state = next;
                        entry.lift();
                        required -= ops.get(entry.op).isOk() ? 1 : 0;
                        entry = head.next;
                        continue;
                    }
                    applied.clear(entry.op);
                }
                entry = entry.next;
                continue;
            }
            if (entry != null && stack.size() > deepest) {
                deepest = stack.size();
                blocked = describe(entry.op, state);
            }
            if (stack.isEmpty()) {
                return new Outcome(Verdict.INVALID, configurations, blocked);
            }
            SearchEntry undone = stack.pop();
            state = states.pop();
            applied.clear(undone.op);
            undone.unlift();
            required += ops.get(undone.op).isOk() ? 1 : 0;
            entry = undone.next;
        }
        return new Outcome(Verdict.VALID, configurations, "");
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

    /** The list of entries in time order, calls before returns at equal times, behind a head sentinel. */
    private SearchEntry entries() {
        List<SearchEntry> list = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            SearchEntry call = new SearchEntry(i, true, op.start());
            list.add(call);
            if (op.isOk()) {
                call.match = new SearchEntry(i, false, op.end());
                list.add(call.match);
            }
        }
        list.sort((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Boolean.compare(b.call, a.call));
        SearchEntry head = new SearchEntry(-1, false, Long.MIN_VALUE);
        SearchEntry last = head;
        for (SearchEntry e : list) {
            last.next = e;
            e.prev = last;
            last = e;
        }
        return head;
    }

    /** A configuration of the search: the model state and the set of operations applied. */
    private record Config(int[] state, BitSet applied) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Config c && Arrays.equals(state, c.state) && applied.equals(c.applied);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(state) + applied.hashCode();
        }
    }
}
