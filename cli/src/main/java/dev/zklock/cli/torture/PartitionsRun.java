package dev.zklock.cli.torture;

import dev.zklock.cli.CommandFailure;
import dev.zklock.cli.RunInfo;
import dev.zklock.recipes.test.partition.NemesisFault;
import dev.zklock.recipes.test.partition.NemesisSchedule;
import dev.zklock.recipes.test.partition.PartitionResult;
import dev.zklock.recipes.test.partition.PartitionRun;
import dev.zklock.recipes.test.partition.RigSettings;
import dev.zklock.recipes.test.partition.RigUnavailableException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of {@code zklock torture --partitions}: a thin caller of the test kit's {@link PartitionRun} (the rig, the
 * workload and observer JVMs, the nemesis's standard schedule, the teardown and the checkers are all there). It prints
 * the progress, the summary table, where the files are and the replay line. Confined to the command's thread.
 *
 * @param seed the run's seed: names the rig, drives the nemesis, and is passed to every JVM
 * @param length how long the nemesis runs and the workloads are asked to run
 * @param clients client JVMs, 3 to 5
 * @param clientMain the workload's main class
 * @param observerMain the observer's main class
 * @param replay the command line that replays the run
 * @param markdown where to write the run's report and, beside it, its picture; null for none
 * @param origin where and from what the figures come ({@link RunInfo#origin}), for the report
 */
record PartitionsRun(
        long seed,
        Duration length,
        int clients,
        String clientMain,
        String observerMain,
        String replay,
        Path markdown,
        List<String> origin) {
    /**
     * Runs it, the progress on {@code err} and the outcome on {@code out}; returns 0 if no zklock lock kind shows a
     * violation (Curator's rows are reported, never judged) and every JVM exited 0 within the grace, 1 otherwise.
     *
     * @throws CommandFailure if the rig cannot be built here (not root, no {@code ip}), with the rig's one-line reason
     */
    int run(PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
        PartitionRun run = PartitionRun.builder(seed)
                .length(length)
                .clients(clients)
                .clientMain(clientMain)
                .observerMain(observerMain)
                .schedule(NemesisSchedule.standard())
                .progress(line -> {
                    err.println("zklock torture --partitions: " + line);
                    err.flush();
                })
                .build();
        PartitionResult result;
        try {
            result = run.run();
        } catch (RigUnavailableException e) {
            throw new CommandFailure(e.getMessage());
        }
        List<String> violations = result.violations();
        print(out, result, violations);
        if (markdown != null) {
            Duration session = RigSettings.DEFAULT_SESSION_TIMEOUT;
            Path picture = PartitionRecord.write(
                    new PartitionMarkdown.Run(seed, length, clients, session, replay),
                    origin,
                    result.history(),
                    PartitionResult.mutexChecker(session),
                    PartitionResult.livenessChecker(session),
                    result.counterFinals(),
                    markdown);
            out.printf("report            %s and %s%n", markdown, picture);
        }
        return violations.isEmpty() && result.allExitedZero() ? 0 : 1;
    }

    private void print(PrintWriter out, PartitionResult result, List<String> violations) {
        out.printf(
                "run               %s, seed %d, %d s, %d clients%n", result.runId(), seed, length.toSeconds(), clients);
        out.printf("faults            %s%n", faults(result.faultsMade()));
        out.printf("faults not made   %s%n", faults(result.faultsFailed()));
        Map<String, String> exits = new LinkedHashMap<>();
        result.exitCodes().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> exits.put(
                        e.getKey(),
                        e.getValue().isPresent()
                                ? "exit " + e.getValue().getAsInt()
                                : "still running after the grace: killed"));
        out.printf("workloads         %s%n", exits);
        out.println();
        out.print(result.summary());
        out.println();
        out.printf("violations        %s%n", violations.isEmpty() ? "none (zklock)" : violations.size());
        violations.forEach(v -> out.printf("  %s%n", v));
        out.printf("histories         %s%n", result.historyDir());
        for (Path file : result.historyFiles()) {
            out.printf("  %s%n", file.getFileName());
        }
        out.printf("logs              %s%n", result.runDir());
        out.printf("replay            %s%n", replay);
        out.flush();
    }

    private static String faults(Map<NemesisFault, Integer> byKind) {
        List<String> each = new ArrayList<>();
        int total = 0;
        for (NemesisFault kind : NemesisFault.values()) {
            int n = byKind.getOrDefault(kind, 0);
            total += n;
            each.add(kind.historyName() + " " + n);
        }
        return total + " {" + String.join(", ", each) + "}";
    }
}
