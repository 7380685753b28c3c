package dev.zklock.cli;

import java.io.PrintWriter;

/**
 * A progress bar on one line of a terminal, redrawn in place; where the output is not a terminal (a pipe, a CI log) it
 * prints a plain line at every tenth of the way instead. Confined to one thread.
 */
final class ProgressBar {
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean terminal;
    private int lastTenth = -1;

    ProgressBar(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** Shows {@code fraction} of the way done, from 0 to 1, with a short status after the bar. */
    void update(double fraction, String status) {
        double done = Math.max(0, Math.min(1, fraction));
        int filled = (int) Math.round(done * WIDTH);
        String bar =
                "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + Math.round(done * 100) + "% " + status;
        if (terminal) {
            err.print("\r" + bar + "\u001b[K");
            err.flush();
        } else if ((int) (done * 10) > lastTenth) {
            lastTenth = (int) (done * 10);
            err.println(bar);
            err.flush();
        }
    }

    /** Ends the bar's line. */
    void finish() {
        if (terminal) {
            err.println();
            err.flush();
        }
    }
}
