package dev.zklock.cli.bench;

import dev.zklock.cli.ConnectString;
import dev.zklock.cli.MachineLoad;
import dev.zklock.cli.Progress;
import dev.zklock.cli.RunInfo;
import dev.zklock.recipes.test.VirtualThreads;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Measures each zklock recipe against its Curator counterpart on the same ZooKeeper in the same run, the two
 * alternating round by round, and reports each figure for both with their ratio and the target the issue set for it.
 *
 * <p>Not thread-safe: picocli fills its options and calls it once, on one thread. ZooKeeper cost: the requests of the
 * recipes it measures (the rows count them), all under {@code /zklock-bench}, which it removes at the end.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Measures each zklock recipe against its Curator counterpart on the same ZooKeeper, in the same run,",
            "alternating: uncontended latency and cycles/s beside the raw floor (one create + one delete),",
            "contended acquisitions/s and hand-off latency for separate clients and for threads sharing one lock",
            "object, with and without local hand-off (beside a JDK fair lock), two clients whose threads share a lock",
            "object each, a lock that keeps its node cached, the semaphore-mutex layout, a semaphore of 3 leases,",
            "readers and writers at once, multi-locks over 1, 4 and 8 paths and in crossed orders, and the ZooKeeper",
            "requests and watch events the servers counted; on a JVM of release 21 or later, virtual threads",
            "through a cohort lock, a plain lock and a registry's keys; leader elections (latch, selector, Spring's",
            "initiators): the next leader after a hand-over and after kill -9 of the leader's process, a cut leader's",
            "revocation, requests per term; the heap per held lock with 10,000 held by one client, and per lock",
            "object (in a JVM of its own); the heap per waiting virtual thread with and without its stack chunks;",
            "pinned virtual threads at 10,000 and 100,000 in a fresh JVM each."
        })
public final class BenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--connect", description = "measure the ZooKeeper at this connect string (default: embedded)")
    String connect;

    @Option(names = "--cluster", paramLabel = "N", description = "measure an embedded ensemble of N servers")
    Integer cluster;

    @Option(names = "--json", description = "print the report as one line of JSON")
    boolean json;

    @Option(names = "--markdown", description = "print the rows as a Markdown table")
    boolean markdown;

    @Option(names = "--plot", paramLabel = "FILE.png", description = "draw acquisitions/s against contenders")
    Path plot;

    @Option(
            names = "--jfr",
            paramLabel = "FILE.jfr",
            description = "record zklock's JFR events of the run into this file (for JDK Mission Control, or"
                    + " jfr print --events dev.zklock.Acquisition FILE.jfr)")
    Path jfr;

    @Option(names = "--quick", description = "a short run with small counts, to check that everything works")
    boolean quick;

    @Option(names = "--seconds", description = "seconds per side per round (default: 1; --quick: 0.15)")
    Double seconds;

    @Option(names = "--rounds", description = "rounds per scenario (default: 5; --quick: 1)")
    Integer rounds;

    @Option(
            names = "--clients",
            split = ",",
            description = "contenders on separate clients (default: 2,8,32; --quick: 2,4)")
    List<Integer> clients;

    @Option(
            names = "--threads",
            split = ",",
            description = "threads sharing one client and lock object (default: 8,32; --quick: 4)")
    List<Integer> threads;

    @Option(
            names = "--recipes",
            split = ",",
            defaultValue = "reentrant,queue-view,exclusive,semaphore,readwrite,multi,spring,leader,held,virtual",
            description = "recipes to measure: reentrant, queue-view (ZkReentrantLock with a queue view), exclusive,"
                    + " semaphore, readwrite, multi, spring, leader"
                    + " (leadership: hand-over, cut connection, kill -9), held (heap per held lock and per lock"
                    + " object: 10,000 locks held by one client in a JVM of its own), virtual (virtual threads, and pinned ones in a fresh"
                    + " JVM, on a JVM of release 21 or later) (default: ${DEFAULT-VALUE})")
    List<String> recipes;

    @Option(
            names = "--only",
            split = ",",
            paramLabel = "KEY",
            description = "run only the scenarios of the chosen recipes whose key contains one of these (e.g."
                    + " local-hand-off-shared-lock: the local hand-off rows beside the JDK fair lock)")
    List<String> only;

    @Option(
            names = "--timeout-ms",
            defaultValue = "5000",
            description = "give up when --connect cannot be reached within this time (default: ${DEFAULT-VALUE})")
    int timeoutMs;

    @Override
    public Integer call() throws Exception {
        Settings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MachineLoad load = MachineLoad.started(); // before the bench starts a server or a thread of its own
        List<Scenario> plan = BenchPlan.of(settings.recipes(), settings.clients(), settings.threads()).stream()
                .filter(scenario ->
                        settings.only().isEmpty() || settings.only().stream().anyMatch(scenario.key()::contains))
                .toList();
        if (plan.isEmpty()) {
            throw usage("--only " + String.join(",", settings.only()) + " matches no scenario of the recipes chosen");
        }
        if (settings.recipes().contains(BenchPlan.VIRTUAL) && !VirtualThreads.isAvailable()) {
            err.println("zklock bench: no virtual-thread rows: this JVM is " + Runtime.version()
                    + ", and virtual threads need release 21 or later");
        }
        BenchReport report;
        try (BenchRecording recording = BenchRecording.start(jfr);
                BenchEnsemble ensemble = open()) {
            if (ensemble.counters().isEmpty()) {
                err.println("zklock bench: the servers do not answer mntr (allow it with "
                        + "4lw.commands.whitelist=mntr); requests and watch events will show n/a");
            }
            Progress progress = new Progress(err, BenchRunner.steps(plan, settings.rounds()));
            BenchRunner runner =
                    new BenchRunner(ensemble, settings.duration(), settings.warmUp(), settings.rounds(), progress);
            List<BenchReport.Result> results = new ArrayList<>();
            for (Scenario scenario : plan) {
                Map<Side, Measurement> measured = runner.run(scenario);
                results.add(new BenchReport.Result(scenario, measured));
            }
            progress.finish();
            List<String> args = spec.commandLine().getParseResult().originalArgs();
            MachineLoad around = load.ended();
            report = new BenchReport(setting(ensemble, settings), RunInfo.origin(args, around), around, results);
        }
        if (json) {
            out.println(report.json());
        } else if (markdown) {
            out.print(report.markdown());
        } else {
            out.print(report.text());
        }
        out.flush();
        if (jfr != null) {
            err.println("zklock bench: JFR recording written to " + jfr);
        }
        if (plot != null) {
            Plot.write(Plot.seriesOf(report), "zklock vs Curator: acquisitions/s, " + LocalDate.now(), plot);
            err.println("zklock bench: plot written to " + plot);
        }
        return report.overlaps() == 0 ? 0 : 1;
    }

    private BenchEnsemble open() throws Exception {
        if (cluster != null) {
            return BenchEnsemble.embeddedCluster(cluster);
        }
        if (connect != null) {
            return BenchEnsemble.connect(ConnectString.parse(connect), timeoutMs);
        }
        return BenchEnsemble.embeddedServer();
    }

    private String setting(BenchEnsemble ensemble, Settings settings) {
        return String.format(
                Locale.ROOT,
                "zklock bench, %s; %d round(s) of %.2f s per side, sides alternating; "
                        + "requests and watch events counted by the servers (%s)",
                ensemble.description(),
                settings.rounds(),
                settings.duration().toMillis() / 1000.0,
                ensemble.counting());
    }

    /** Checks the options and fills in the defaults of a full or a quick run. */
    private Settings settings() {
        if (connect != null && cluster != null) {
            throw usage("--connect and --cluster exclude each other: give one");
        }
        if (connect != null) {
            try {
                ConnectString.parse(connect);
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
        }
        if (cluster != null && (cluster < 1 || cluster > 9)) {
            throw usage("--cluster must be 1 to 9 servers, not " + cluster);
        }
        if (json && markdown) {
            throw usage("--json and --markdown exclude each other: give one");
        }
        double secs = seconds != null ? seconds : quick ? 0.15 : 1.0;
        int roundCount = rounds != null ? rounds : quick ? 1 : 5;
        if (!(secs > 0 && secs <= 3600)) {
            throw usage("--seconds must be more than 0 and at most 3600, not " + secs);
        }
        if (roundCount < 1) {
            throw usage("--rounds must be at least 1, not " + roundCount);
        }
        List<Integer> clientCounts = clients != null ? clients : quick ? List.of(2, 4) : List.of(2, 8, 32);
        List<Integer> threadCounts = threads != null ? threads : quick ? List.of(4) : List.of(8, 32);
        for (int n : clientCounts) {
            requireContenders("--clients", n);
        }
        for (int n : threadCounts) {
            requireContenders("--threads", n);
        }
        List<String> chosen = recipes.stream().map(String::trim).toList();
        for (String key : chosen) {
            if (!BenchPlan.RECIPES.contains(key)) {
                throw usage("unknown recipe '" + key + "': expected one of " + String.join(", ", BenchPlan.RECIPES));
            }
        }
        Duration duration = Duration.ofNanos(Math.round(secs * 1e9));
        Duration warmUp = Duration.ofNanos(
                Math.min(duration.toNanos() / 3, Duration.ofMillis(500).toNanos()));
        List<String> keys = only != null ? only.stream().map(String::trim).toList() : List.of();
        return new Settings(chosen, clientCounts, threadCounts, duration, warmUp, roundCount, keys);
    }

    private void requireContenders(String option, int n) {
        if (n < 2 || n > 256) {
            throw usage(option + " counts must be 2 to 256, not " + n);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** The checked options of one run. */
    private record Settings(
            List<String> recipes,
            List<Integer> clients,
            List<Integer> threads,
            Duration duration,
            Duration warmUp,
            int rounds,
            List<String> only) {}
}
