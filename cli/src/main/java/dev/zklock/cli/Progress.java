package dev.zklock.cli;

import java.io.PrintWriter;

/**
 * A progress bar on one line of the error stream, redrawn in place: how many of a run's steps are done and what
 * runs now. Not thread-safe: confined to the thread of the run it shows (the bench's, the torture's). Makes no
 * ZooKeeper call.
 */
public final class Progress {
    /*
     * Not me.tongfei:progressbar (0.10.2), tried and measured: to keep this line as it is, it needs a renderer and a
     * consumer of ours (its own line reads "task 40% [===>  ] 4/10 (0:00:05 / 0:00:07)"), so it would draw nothing
     * itself; what it adds is a shared refresh thread that draws asynchronously, which dropped the first step's text
     * and once drew a stale "0/4" after "3/4", and jline-terminal and jline-native, 0.50 MB of the shaded jar.
     */
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final int total;
    private int done;
    private int lastLength;

    /**
     * Makes a bar of {@code total} steps, none done, drawn on {@code err}.
     *
     * @param err the error stream the bar is drawn on
     * @param total how many steps the run has
     */
    public Progress(PrintWriter err, int total) {
        this.err = err;
        this.total = total;
    }

    /** Shows that the step {@code what} runs now. */
    public void running(String what) {
        int filled = total == 0 ? WIDTH : done * WIDTH / total;
        String line = "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + done + "/" + total + "  " + what;
        err.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        err.flush();
        lastLength = line.length();
    }

    /** Counts one step as done. */
    public void stepDone() {
        done++;
    }

    /** Clears the bar. */
    public void finish() {
        err.print("\r" + " ".repeat(lastLength) + "\r");
        err.flush();
    }
}
