package dev.zklock.recipes.test.history;

import java.util.List;

/**
 * The intervals the checkers judge, for whoever draws or prints a history: its {@link Hold}s and the nemesis's
 * {@link FaultWindow}s, found exactly as the checkers find them.
 *
 * <p>Stateless and thread-safe; pure functions of the history.
 */
public final class Intervals {
    private Intervals() {}

    /**
     * Returns every hold of the history: each {@code ok} acquire to the next release its process invokes on that key in
     * that mode, {@link Long#MAX_VALUE} as the end of a hold never released.
     *
     * @param history the history
     * @return the holds of every key, in grant order
     * @throws IllegalArgumentException naming the mode and the key if an acquire or release has an unknown mode
     */
    public static List<Hold> holds(History history) {
        return Holds.of(history);
    }

    /**
     * Returns every fault the nemesis made: each {@code invoke} to the next {@code ok} of its kind, {@link
     * Long#MAX_VALUE} as the end of one never healed. A fault the nemesis could not make ({@code fail}) has no window.
     *
     * @param history the history
     * @return the faults, in start order
     */
    public static List<FaultWindow> faults(History history) {
        return List.copyOf(Timeline.of(history).faults());
    }
}
