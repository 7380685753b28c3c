package dev.zklock.recipes.test.partition;

import java.util.function.Supplier;

/**
 * How the rig's main classes end: 0 after a run, 2 with one line on standard error for a bad command line, 1 with the
 * stack trace for anything else. They exit explicitly, so that no thread a library left behind keeps the JVM alive.
 */
final class Mains {
    private Mains() {}

    /** A main's work. */
    @FunctionalInterface
    interface Body {
        void run() throws Exception;
    }

    /** Parses the command line, or exits 2 saying what is wrong with it. */
    static <T> T parseOrExit(Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            throw new AssertionError("exit returned", e);
        }
    }

    /** Runs {@code body}, then exits 0; exits 1 with its stack trace if it throws. */
    static void runAndExit(Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
