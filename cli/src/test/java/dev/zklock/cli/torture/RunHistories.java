package dev.zklock.cli.torture;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.nio.file.Path;

/**
 * Hand-made histories of a partition run for the picture's and the report's tests, written with {@link HistoryWriter}
 * (one file per JVM, as a run writes them) and read back with {@link History#read}: the lines' times are the writer's
 * clock, their order the order written.
 */
final class RunHistories {
    static final String ZKLOCK = "/partitions/zklock/reentrant";
    static final String CURATOR = "/partitions/curator/mutex";

    private RunHistories() {}

    /**
     * A run with no overlap: c1 and c2 take turns on zklock's reentrant lock, c2 holds Curator's mutex once, and the
     * nemesis cuts c1 from s1 in between.
     */
    static History clean(Path dir) {
        Path clients = dir.resolve("c.history");
        Path nemesis = dir.resolve("nemesis.history");
        try (HistoryWriter c = HistoryWriter.open(clients);
                HistoryWriter n = HistoryWriter.open(nemesis)) {
            hold(c, "c1.t1", ZKLOCK, 1);
            n.record("nemesis", "invoke", "cut", "-", "c1 from s1");
            hold(c, "c2.t1", ZKLOCK, 2);
            n.record("nemesis", "ok", "cut", "-", "c1 from s1");
            hold(c, "c2.t2", CURATOR, 3);
        }
        return History.read(clients, nemesis);
    }

    /**
     * A run with one unexplained overlap on zklock's reentrant lock: c2 is granted while c1 holds, then c1 and c2
     * release; Curator's mutex is held once; the nemesis cuts c1 from the start of the overlap to its end and cannot make
     * a kill.
     */
    static History overlapping(Path dir) {
        return overlapping(dir, "cut");
    }

    /** As {@link #overlapping(Path)}, the fault around the overlap of kind {@code fault} on c1. */
    static History overlapping(Path dir, String fault) {
        Path clients = dir.resolve("c.history");
        Path nemesis = dir.resolve("nemesis.history");
        try (HistoryWriter c = HistoryWriter.open(clients);
                HistoryWriter n = HistoryWriter.open(nemesis)) {
            n.record("nemesis", "invoke", fault, "-", "c1");
            acquire(c, "c1.t1", ZKLOCK, 1);
            acquire(c, "c2.t1", ZKLOCK, 2);
            release(c, "c1.t1", ZKLOCK);
            n.record("nemesis", "ok", fault, "-", "c1");
            n.record("nemesis", "fail", "kill", "-", "not made: no leader");
            release(c, "c2.t1", ZKLOCK);
            hold(c, "c3.t2", CURATOR, 3);
        }
        return History.read(clients, nemesis);
    }

    private static void hold(HistoryWriter w, String process, String key, long token) {
        acquire(w, process, key, token);
        release(w, process, key);
    }

    private static void acquire(HistoryWriter w, String process, String key, long token) {
        w.record(process, "invoke", "acquire", key, "exclusive");
        w.record(process, "ok", "acquire", key, "exclusive " + token);
    }

    private static void release(HistoryWriter w, String process, String key) {
        w.record(process, "invoke", "release", key, "exclusive");
        w.record(process, "ok", "release", key, "exclusive");
    }
}
