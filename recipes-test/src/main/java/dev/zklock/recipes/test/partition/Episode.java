package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One fault in effect: its kind, the text naming its targets (as the history's value), and what undoes it. Safe for
 * use by multiple threads; {@link #heal} runs once.
 */
public final class Episode {
    /** One step that undoes part of a fault. */
    @FunctionalInterface
    interface Undo {
        void run() throws IOException, InterruptedException;
    }

    private final NemesisFault kind;
    private final String targets;
    private final List<Undo> undos = new ArrayList<>(); // guarded by this

    Episode(NemesisFault kind, String targets) {
        this.kind = kind;
        this.targets = targets;
    }

    /** Returns the fault's kind. */
    public NemesisFault kind() {
        return kind;
    }

    /** Returns what the fault acts on, e.g. {@code c2 s1 blackhole} or {@code s3 | s1 s2}. */
    public String targets() {
        return targets;
    }

    synchronized void onHeal(Undo undo) {
        undos.add(undo);
    }

    /**
     * Undoes the fault, the last step first; every step runs even if an earlier one fails, and the first failure is
     * thrown at the end. Does nothing the second time.
     */
    public void heal() throws IOException, InterruptedException {
        List<Undo> steps;
        synchronized (this) {
            steps = new ArrayList<>(undos);
            undos.clear();
        }
        Exception first = null;
        for (int i = steps.size() - 1; i >= 0; i--) {
            try {
                steps.get(i).run();
            } catch (IOException | RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first instanceof IOException io) {
            throw io;
        }
        if (first != null) {
            throw (RuntimeException) first;
        }
    }

    @Override
    public String toString() {
        return kind.historyName() + " " + targets;
    }
}
