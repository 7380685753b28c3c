package dev.zklock.cli.demo;

import java.io.PrintWriter;

/** The demo's screen: plain lines, each with the seconds since the demo started. Thread-safe. */
final class Screen {
    private final PrintWriter out;
    private final long start = System.nanoTime();

    Screen(PrintWriter out) {
        this.out = out;
    }

    synchronized void say(String format, Object... args) {
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf("[%6.3fs] %s%n", seconds, String.format(format, args));
        out.flush();
    }
}
