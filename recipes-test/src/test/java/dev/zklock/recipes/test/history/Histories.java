package dev.zklock.recipes.test.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Hand-made histories for the checkers' tests: lines written with single spaces ({@code "10 c1.t1 ok acquire /k
 * exclusive 3"}, the value being the rest of the line) and whole holds in one call.
 */
final class Histories {
    private final List<String> lines = new ArrayList<>();

    static Histories history() {
        return new Histories();
    }

    /** Adds one event: nanos, process, type, f, key, then the value (which may hold spaces). */
    Histories line(String spaced) {
        lines.add(String.join("\t", spaced.split(" ", 6)));
        return this;
    }

    /**
     * Adds a hold: acquire invoked at {@code grant - 1}, ok at {@code grant} with token {@code grant}, release invoked
     * at {@code release} and ok one nanosecond later.
     */
    Histories hold(String process, String key, String mode, long grant, long release) {
        acquired(process, key, mode, grant);
        line(release + " " + process + " invoke release " + key + " " + mode);
        return line((release + 1) + " " + process + " ok release " + key + " " + mode);
    }

    /** Adds an acquire invoked at {@code grant - 1} and ok at {@code grant}, never released. */
    Histories acquired(String process, String key, String mode, long grant) {
        line((grant - 1) + " " + process + " invoke acquire " + key + " " + mode);
        return line(grant + " " + process + " ok acquire " + key + " " + mode + " " + grant);
    }

    /** Adds a nemesis fault from {@code start} to {@code end}. */
    Histories fault(String kind, String targets, long start, long end) {
        line(start + " nemesis invoke " + kind + " - " + targets);
        return line(end + " nemesis ok " + kind + " - " + targets);
    }

    History build() {
        return History.of(History.parse("test", lines));
    }
}
