package dev.zklock.recipes.test.partition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * One whole partition run, as a test or {@code zklock torture --partitions} calls it: builds a {@link PartitionRig},
 * starts the workload ({@link PartitionClient} by default) in every client namespace and the {@link PartitionObserver}
 * in its own, all on one store directory of the run, runs the {@link Nemesis} for the run's length, waits up to a grace
 * for every JVM to end, tears it all down (also when anything fails), then reads the run's histories and judges them
 * ({@link PartitionResult}).
 *
 * <p>The run's directory is the rig's ({@code /tmp/zklock-<run id>-*}: servers' data, one log per node) unless {@link
 * Builder#output} names another; the histories go to its {@code histories}, the counters and fenced sets to its {@code
 * store}. Every JVM is given the seed; the clients the session timeout of the rig's settings.
 *
 * <p>Confined to the thread that calls {@link #run}; the rig's shutdown hook tears down on Ctrl-C. Cost: the
 * workloads' own (their acquires and releases); the harness makes no ZooKeeper request.
 */
public final class PartitionRun {
    /** How long after the run's end the JVMs may take to write their last lines and exit, by default. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);

    private final Builder settings;

    private PartitionRun(Builder settings) {
        this.settings = settings;
    }

    /**
     * Returns a builder of a run of {@code seed}: by default 60 s of the standard schedule, 3 clients, the real
     * workloads.
     *
     * @param seed names the rig, drives the nemesis and every JVM's choices
     * @return the builder
     */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /**
     * Runs it and judges the histories.
     *
     * @return what the run did and what the checkers found
     * @throws RigUnavailableException if namespaces cannot be made here, with a one-line message
     * @throws IllegalStateException if the rig cannot be built (no quorum) or the run id is in use
     * @throws IOException if a file of the run cannot be written or read
     * @throws InterruptedException if interrupted; everything is torn down first
     */
    public PartitionResult run() throws IOException, InterruptedException {
        RigSettings rigSettings = RigSettings.of(settings.seed, settings.clients);
        Consumer<String> progress = settings.progress;
        progress.accept(String.format(
                "seed %d, %d s, %d clients; building the rig...",
                settings.seed, settings.length.toSeconds(), settings.clients));
        String runId = rigSettings.runId();
        Path dir;
        Path histories;
        Path store;
        Map<String, OptionalInt> exits;
        try (PartitionRig rig = PartitionRig.start(rigSettings)) {
            dir = settings.output == null ? rig.runDir() : Files.createDirectories(settings.output);
            histories = Files.createDirectories(dir.resolve("histories"));
            store = Files.createDirectories(dir.resolve("store"));
            progress.accept(String.format(
                    "rig %s up (leader s%d), run directory %s; workloads and nemesis for %d s...",
                    runId, rig.leader().orElse(0), dir, settings.length.toSeconds()));
            RunJvms jvms = RunJvms.start(rig, settings, histories, store);
            try (Nemesis nemesis =
                    new Nemesis(rig, rig.stranger(), settings.seed, histories.resolve("nemesis.history"))) {
                nemesis.run(settings.length, settings.schedule);
            }
            progress.accept("nemesis done; waiting for the workloads to end...");
            exits = jvms.await(settings.grace);
        }
        progress.accept("torn down; checking the histories...");
        return PartitionResult.judge(runId, dir, histories, store, rigSettings.sessionTimeout(), exits);
    }

    /** What a run is made of. Confined to the thread that builds it. */
    public static final class Builder {
        private final long seed;
        private Duration length = Duration.ofSeconds(60);
        private int clients = 3;
        private String clientMain = PartitionClient.class.getName();
        private String observerMain = PartitionObserver.class.getName();
        private Path output;
        private NemesisSchedule schedule = NemesisSchedule.standard();
        private Duration grace = DEFAULT_GRACE;
        private Consumer<String> progress = line -> {};

        private Builder(long seed) {
            this.seed = seed;
        }

        /** Sets how long the nemesis runs and the workloads are asked to run (at least 1 s). */
        public Builder length(Duration value) {
            if (value.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("run length must be at least 1 s, not " + value);
            }
            this.length = value;
            return this;
        }

        /** Sets the number of client JVMs, 3 to 5. */
        public Builder clients(int value) {
            if (value < 3 || value > 5) {
                throw new IllegalArgumentException("clients must be 3 to 5, not " + value);
            }
            this.clients = value;
            return this;
        }

        /** Sets the workload's main class, started in every client namespace. */
        public Builder clientMain(String value) {
            this.clientMain = Objects.requireNonNull(value, "clientMain");
            return this;
        }

        /** Sets the observer's main class. */
        public Builder observerMain(String value) {
            this.observerMain = Objects.requireNonNull(value, "observerMain");
            return this;
        }

        /** Sets the run's directory (histories and store); by default the rig's own directory. */
        public Builder output(Path value) {
            this.output = Objects.requireNonNull(value, "output");
            return this;
        }

        /** Sets the nemesis's schedule: {@link NemesisSchedule#standard} or {@link NemesisSchedule#shortRun}. */
        public Builder schedule(NemesisSchedule value) {
            this.schedule = Objects.requireNonNull(value, "schedule");
            return this;
        }

        /** Sets how long after the nemesis ends the JVMs may take to end before they are killed. */
        public Builder grace(Duration value) {
            this.grace = Objects.requireNonNull(value, "grace");
            return this;
        }

        /** Sets who hears the run's progress, one line at a time (on the run's thread). */
        public Builder progress(Consumer<String> value) {
            this.progress = Objects.requireNonNull(value, "progress");
            return this;
        }

        /** Returns the run. */
        public PartitionRun build() {
            return new PartitionRun(this);
        }

        long seed() {
            return seed;
        }

        Duration length() {
            return length;
        }

        int clients() {
            return clients;
        }

        String clientMain() {
            return clientMain;
        }

        String observerMain() {
            return observerMain;
        }

        List<String> seedArgs() {
            return List.of("--seed", Long.toString(seed));
        }
    }
}
