package dev.zklock.cli;

import dev.zklock.recipes.test.partition.Nemesis;
import dev.zklock.recipes.test.partition.NemesisFault;
import dev.zklock.recipes.test.partition.NemesisSchedule;
import dev.zklock.recipes.test.partition.NodeProcess;
import dev.zklock.recipes.test.partition.PartitionRig;
import dev.zklock.recipes.test.partition.RigSettings;
import dev.zklock.recipes.test.partition.RigUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * One run of {@code zklock torture --partitions}: builds a {@link PartitionRig}, starts a workload JVM in every client
 * namespace and the observer in its own, runs the nemesis's standard schedule for the run's length, waits for the
 * workloads to end, tears it all down and prints where the histories are and the replay line. Confined to the
 * command's thread (the rig's shutdown hook tears down on Ctrl-C).
 *
 * @param seed the run's seed: names the rig, drives the nemesis, and is passed to every client
 * @param length how long the nemesis runs and the workloads are asked to run
 * @param clients client JVMs, 3 to 5
 * @param clientMain the workload's main class
 * @param observerMain the observer's main class
 * @param replay the command line that replays the run
 */
record PartitionsRun(long seed, Duration length, int clients, String clientMain, String observerMain, String replay) {
    /** How long after the run's end the workloads may take to write their last lines and exit. */
    private static final Duration GRACE = Duration.ofSeconds(60);

    /**
     * Runs it, the progress on {@code err} and the outcome on {@code out}; returns 0 if every workload process exited
     * 0 within the grace, 1 otherwise.
     *
     * @throws CommandFailure if the rig cannot be built here (not root, no {@code ip}), with the rig's one-line reason
     */
    int run(PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
        RigSettings settings = RigSettings.of(seed, clients);
        err.printf(
                "zklock torture --partitions: seed %d, %d s, %d clients; building the rig...%n",
                seed, length.toSeconds(), clients);
        err.flush();
        Map<NemesisFault, Integer> made;
        Map<String, String> outcomes;
        Path histories;
        String runId;
        try (PartitionRig rig = startRig(settings)) {
            runId = rig.runId();
            histories = Files.createDirectories(rig.runDir().resolve("histories"));
            err.printf(
                    "rig %s up (leader s%d); workloads and nemesis for %d s...%n",
                    runId, rig.leader().orElse(0), length.toSeconds());
            err.flush();
            List<NodeProcess> workloads = startWorkloads(rig, settings, histories);
            try (Nemesis nemesis = new Nemesis(rig, rig.stranger(), seed, histories.resolve("nemesis.history"))) {
                made = nemesis.run(length, NemesisSchedule.standard());
            }
            outcomes = awaitWorkloads(workloads);
        }
        print(out, runId, made, outcomes, histories);
        return outcomes.values().stream().allMatch("exit 0"::equals) ? 0 : 1;
    }

    private static PartitionRig startRig(RigSettings settings) throws IOException, InterruptedException {
        try {
            return PartitionRig.start(settings);
        } catch (RigUnavailableException e) {
            throw new CommandFailure(e.getMessage());
        }
    }

    private List<NodeProcess> startWorkloads(PartitionRig rig, RigSettings settings, Path histories)
            throws IOException {
        String connect = rig.connectString();
        String seconds = Long.toString(length.toSeconds());
        List<NodeProcess> started = new ArrayList<>();
        for (int i = 1; i <= clients; i++) {
            String id = PartitionRig.clientNode(i);
            started.add(rig.startClient(
                    i,
                    clientMain,
                    List.of(
                            "--id",
                            id,
                            "--connect",
                            connect,
                            "--history",
                            histories.resolve(id + ".history").toString(),
                            "--seed",
                            Long.toString(seed),
                            "--seconds",
                            seconds,
                            "--session-timeout-ms",
                            Long.toString(settings.sessionTimeout().toMillis()))));
        }
        started.add(rig.startObserver(
                observerMain,
                List.of(
                        "--connect", connect,
                        "--history", histories.resolve("observer.history").toString(),
                        "--seconds", seconds)));
        return started;
    }

    private static Map<String, String> awaitWorkloads(List<NodeProcess> workloads) throws InterruptedException {
        Map<String, String> outcomes = new LinkedHashMap<>();
        long end = System.nanoTime() + GRACE.toNanos();
        for (NodeProcess workload : workloads) {
            OptionalInt status = workload.waitFor(Duration.ofNanos(Math.max(0, end - System.nanoTime())));
            outcomes.put(
                    workload.node(),
                    status.isPresent()
                            ? "exit " + status.getAsInt()
                            : "still running " + GRACE.toSeconds() + " s after the run: killed");
        }
        return outcomes;
    }

    private void print(
            PrintWriter out,
            String runId,
            Map<NemesisFault, Integer> made,
            Map<String, String> outcomes,
            Path histories)
            throws IOException {
        Map<NemesisFault, Integer> byKind = new EnumMap<>(NemesisFault.class);
        byKind.putAll(made);
        List<String> faults = new ArrayList<>();
        for (NemesisFault kind : NemesisFault.values()) {
            faults.add(kind.historyName() + " " + byKind.getOrDefault(kind, 0));
        }
        out.printf("run               %s, seed %d, %d s, %d clients%n", runId, seed, length.toSeconds(), clients);
        out.printf(
                "faults            %d {%s}%n",
                made.values().stream().mapToInt(Integer::intValue).sum(), String.join(", ", faults));
        out.printf("workloads         %s%n", outcomes);
        out.printf("histories         %s%n", histories);
        try (var files = Files.list(histories)) {
            files.sorted().forEach(file -> out.printf("  %s%n", file.getFileName()));
        }
        out.printf("logs              %s%n", histories.getParent());
        out.printf("replay            %s%n", replay);
        out.flush();
    }
}
