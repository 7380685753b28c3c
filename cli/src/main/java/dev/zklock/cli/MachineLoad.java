package dev.zklock.cli;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Optional;

/**
 * How busy the machine was around a run: the system's one-minute load average at the start, read before the run starts
 * anything, and at the end, and the processors the JVM may use. The load at the start says what else was running; the
 * load at the end counts the run's own threads (and an embedded server) as well, so only the start decides whether the
 * machine was loaded. Immutable, and safe for use by any thread.
 *
 * @param cores the processors available to the JVM
 * @param atStart the load average when the run began; NaN if the system does not tell
 * @param atEnd the load average when the run ended; NaN if not read yet or not told
 */
public record MachineLoad(int cores, double atStart, double atEnd) {
    /**
     * The load average per core above which a machine counts as loaded: more runnable threads than cores, half as many
     * again, so that a thread of the bench often waits for a core and its latencies measure the queue for the CPU.
     */
    public static final double LOADED_PER_CORE = 1.5;

    /**
     * Returns the load now, as a run's start: the processors and the load average; no end yet.
     *
     * @return the load at the start
     */
    public static MachineLoad started() {
        return new MachineLoad(Runtime.getRuntime().availableProcessors(), loadAverage(), Double.NaN);
    }

    /**
     * Returns this load with its end: the load average now.
     *
     * @return this load, ended
     */
    public MachineLoad ended() {
        return new MachineLoad(cores, atStart, loadAverage());
    }

    /**
     * Tells whether the load average at the start was above {@link #LOADED_PER_CORE} per core.
     *
     * @return true if the machine was loaded when the run began
     */
    public boolean isLoaded() {
        return atStart > LOADED_PER_CORE * cores;
    }

    /**
     * Returns, for a loaded machine, what a reader of its figures must know: "load average 5.43 on 2 cores at the start
     * (above 1.5 per core): latency rows are not representative"; empty otherwise.
     *
     * @return the warning, for a loaded machine only
     */
    public Optional<String> warning() {
        if (!isLoaded()) {
            return Optional.empty();
        }
        return Optional.of(String.format(
                Locale.ROOT,
                "load average %.2f on %d cores at the start (above %s per core): latency rows are not representative",
                atStart,
                cores,
                LOADED_PER_CORE));
    }

    /**
     * Returns "load average 0.42 at the start, 2.10 at the end", leaving out what is not known.
     *
     * @return the load, in words
     */
    public String describe() {
        if (Double.isNaN(atStart) && Double.isNaN(atEnd)) {
            return "load average unknown";
        }
        StringBuilder out = new StringBuilder("load average ");
        out.append(Double.isNaN(atStart) ? "unknown" : String.format(Locale.ROOT, "%.2f", atStart))
                .append(" at the start");
        if (!Double.isNaN(atEnd)) {
            out.append(String.format(Locale.ROOT, ", %.2f at the end", atEnd));
        }
        return out.toString();
    }

    /** Returns the system's one-minute load average, or NaN where the system does not tell (Windows). */
    private static double loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? Double.NaN : load;
    }
}
