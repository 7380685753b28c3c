package dev.zklock.recipes.test.partition;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * What a {@link PartitionRig} is built from: the seed that names the run and drives its nemesis, the number of client
 * namespaces (1 to 9; {@code zklock torture --partitions} uses 3 to 5), and the session timeout the run's clients ask
 * for (the servers grant 1 to 10 s), which the nemesis pauses a client beyond. Immutable.
 *
 * @param seed the run's seed
 * @param clients the client namespaces {@code c1..cN}
 * @param sessionTimeout the clients' session timeout
 */
public record RigSettings(long seed, int clients, Duration sessionTimeout) {
    /** The session timeout of {@link #of}: 4 s, eight ticks of the servers. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(4);

    /** Checks the values. */
    public RigSettings {
        if (clients < 1 || clients > 9) {
            throw new IllegalArgumentException("clients must be 1 to 9, not " + clients);
        }
        if (sessionTimeout.compareTo(Duration.ofSeconds(1)) < 0
                || sessionTimeout.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("session timeout must be 1 to 10 s, not " + sessionTimeout);
        }
    }

    /** Returns the settings of {@code clients} clients with the default session timeout. */
    public static RigSettings of(long seed, int clients) {
        return new RigSettings(seed, clients, DEFAULT_SESSION_TIMEOUT);
    }

    /** Returns the run id: {@code zkp} and four hex digits drawn from the seed; it prefixes every namespace. */
    public String runId() {
        return Namespaces.PREFIX + String.format("%04x", new SplittableRandom(seed).nextInt(0x10000));
    }
}
