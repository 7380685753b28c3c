package dev.zklock.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The context switches of the calling thread so far, voluntary and involuntary, as Linux counts them in
 * {@code /proc/thread-self/status}: how a bench contender tells how often it left its processor (a park to wait for a
 * lock, a preemption). Empty where there is no such file (not Linux). Stateless; no ZooKeeper call.
 */
final class ThreadSwitches {
    private static final Path STATUS = Path.of("/proc/thread-self/status");

    private ThreadSwitches() {}

    /** Returns the calling thread's context switches so far, or empty where the system does not tell. */
    static OptionalLong ofCurrentThread() {
        try {
            long switches = 0;
            int found = 0;
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    switches +=
                            Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                    found++;
                }
            }
            return found == 2 ? OptionalLong.of(switches) : OptionalLong.empty();
        } catch (IOException | NumberFormatException | UnsupportedOperationException e) {
            return OptionalLong.empty();
        }
    }
}
