package dev.zklock.recipes.test.partition;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What the observer JVM of the partition rig is told: {@code --connect <connect string> --history <file> --seconds
 * <run length>}, and optionally {@code --store <dir>} (default: the directory {@code store} beside the history file, as
 * for the clients) and {@code --grace-seconds <s>} (default 30), the longest it waits after the run for the clients'
 * sessions to end before it reads the fenced sets, and {@code --seed <S>} (default 0), from which the stranger draws the
 * order in which it visits lock paths. Immutable.
 *
 * @param connect the ensemble's connect string
 * @param history the file the observer's history is appended to
 * @param runLength how long the clients run
 * @param store the directory of the counters and fenced sets the clients share
 * @param grace the longest wait after the run for every presence node to go
 * @param seed the seed of the stranger's choices
 */
public record ObserverOptions(String connect, Path history, Duration runLength, Path store, Duration grace, long seed) {
    private static final Set<String> NAMES = Set.of("connect", "history", "seconds", "store", "grace-seconds", "seed");

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException naming the value if the run length or the grace is negative
     * @throws NullPointerException if an argument is null
     */
    public ObserverOptions {
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(runLength, "runLength");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(grace, "grace");
        if (runLength.isNegative() || grace.isNegative()) {
            throw new IllegalArgumentException(
                    "run length and grace must not be negative, got " + runLength + " and " + grace);
        }
    }

    /**
     * Parses the command line of {@link PartitionObserver}.
     *
     * @param args the arguments
     * @return the options
     * @throws IllegalArgumentException naming the argument if one is unknown, missing, given twice or malformed
     */
    public static ObserverOptions parse(String... args) {
        Args parsed = Args.parse("partition observer", NAMES, args);
        return new ObserverOptions(
                parsed.required("connect"),
                Path.of(parsed.required("history")),
                Duration.ofSeconds(parsed.number("seconds", null, 0)),
                parsed.optional("store", null) == null
                        ? PartitionWorkloads.defaultStore(Path.of(parsed.required("history")))
                        : Path.of(parsed.optional("store", null)),
                Duration.ofSeconds(parsed.number("grace-seconds", "30", 0)),
                parsed.number("seed", "0", Long.MIN_VALUE));
    }
}
