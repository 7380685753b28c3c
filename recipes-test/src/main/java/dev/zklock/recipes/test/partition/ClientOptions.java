package dev.zklock.recipes.test.partition;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What one client JVM of the partition rig is told: {@code --id c<i> --connect <connect string> --history <file> --seed
 * <S> --seconds <run length> --session-timeout-ms <ms>}, and optionally {@code --store <dir>} (default: the directory
 * {@code store} beside the history file, which the client JVMs of one run share when their histories are written to one
 * directory). Immutable.
 *
 * @param id the client's id, such as {@code c2}: letters, digits and underscores; the history's processes are
 *     {@code <id>.t<k>}
 * @param connect the ensemble's connect string
 * @param history the file this JVM's history is appended to
 * @param seed the seed of every random choice of the workload
 * @param runLength how long the workload runs
 * @param sessionTimeoutMs the session timeout the client asks for
 * @param store the directory of the counters and fenced sets, shared by every client JVM of the run
 */
public record ClientOptions(
        String id, String connect, Path history, long seed, Duration runLength, int sessionTimeoutMs, Path store) {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_]+");
    private static final Set<String> NAMES =
            Set.of("id", "connect", "history", "seed", "seconds", "session-timeout-ms", "store");

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException naming the value if the id has a character other than letters, digits and
     *     underscores, the run length is negative or the session timeout is not positive
     * @throws NullPointerException if an argument is null
     */
    public ClientOptions {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(connect, "connect");
        Objects.requireNonNull(history, "history");
        Objects.requireNonNull(runLength, "runLength");
        Objects.requireNonNull(store, "store");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("client id '" + id + "' must be letters, digits and underscores");
        }
        if (runLength.isNegative()) {
            throw new IllegalArgumentException("run length must not be negative, got " + runLength);
        }
        if (sessionTimeoutMs < 1) {
            throw new IllegalArgumentException("session timeout must be positive, got " + sessionTimeoutMs + " ms");
        }
    }

    /**
     * Parses the command line of {@link PartitionClient}.
     *
     * @param args the arguments; every one but {@code --store} is required
     * @return the options
     * @throws IllegalArgumentException naming the argument if one is unknown, missing, given twice or malformed
     */
    public static ClientOptions parse(String... args) {
        Args parsed = Args.parse("partition client", NAMES, args);
        return new ClientOptions(
                parsed.required("id"),
                parsed.required("connect"),
                Path.of(parsed.required("history")),
                parsed.number("seed", null, Long.MIN_VALUE),
                Duration.ofSeconds(parsed.number("seconds", null, 0)),
                Math.toIntExact(parsed.number("session-timeout-ms", null, 1)),
                parsed.optional("store", null) == null
                        ? PartitionWorkloads.defaultStore(Path.of(parsed.required("history")))
                        : Path.of(parsed.optional("store", null)));
    }
}
