package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a process's state letter from {@code /proc/<pid>/stat}. Stateless and thread-safe. */
final class ProcStat {
    private ProcStat() {}

    /** Returns the state letter ({@code R}, {@code S}, {@code T} for stopped), or {@code '?'} if the pid is gone. */
    static char state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // "pid (comm) S ...": the comm may hold spaces and parentheses, the state follows the last ')'.
            int close = stat.lastIndexOf(')');
            return close < 0 || close + 2 >= stat.length() ? '?' : stat.charAt(close + 2);
        } catch (IOException e) {
            return '?';
        }
    }
}
