package dev.zklock.cli.torture;

import dev.zklock.cli.Clients;
import dev.zklock.cli.Progress;
import dev.zklock.cli.RunInfo;
import dev.zklock.recipes.test.Chaos;
import dev.zklock.recipes.test.ChaosReport;
import dev.zklock.recipes.test.ChaosSettings;
import dev.zklock.recipes.test.EmbeddedZooKeeper;
import dev.zklock.recipes.test.FaultKind;
import dev.zklock.recipes.test.SafetyReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The chaos suite as a command: clients on an embedded ZooKeeper ensemble contend for zklock's locks (cohort and cached
 * ones among them, whose threads pass the lock locally) and Curator's on shared paths while sessions expire,
 * connections drop, servers restart and leaders die ({@code --faults default}), or while connections go silent, a
 * stranger deletes lock nodes and clients are closed under their threads ({@code --faults cohort}); a progress bar on
 * stderr, the safety monitor's report on stdout, and exit status 1 if any safety property broke. With {@code
 * --simulate}, the deterministic simulator instead ({@link SimulateRun}); with {@code --partitions}, a real ensemble of
 * server, workload and observer JVMs in Linux network namespaces under a seeded nemesis ({@link PartitionsRun}).
 *
 * <p>Not thread-safe: picocli fills its options and calls it once, on one thread. ZooKeeper cost: the requests of the
 * locks its clients contend for; it counts acquisitions, not requests. {@code --simulate} makes no ZooKeeper call.
 */
@Command(
        name = "torture",
        mixinStandardHelpOptions = true,
        description = "Contending clients, zklock's locks (cohort and cached ones among them) and Curator's on shared "
                + "paths, and real faults on an embedded ensemble; reports acquisitions, faults, overlaps, token "
                + "regressions (a token not above the newest of its path: every hold has a token of its own), leaked "
                + "nodes and stuck waiters. Exit status 1 on any violation.")
public final class TortureCommand implements Callable<Integer> {
    private static final String BASE_PATH = "/zklock-torture";
    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final int CONNECTION_TIMEOUT_MS = 5_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--seconds", defaultValue = "60", description = "how long to run (default: ${DEFAULT-VALUE})")
    long seconds;

    @Option(names = "--seed", description = "the seed that replays a run's scenario (default: random, printed)")
    Long seed;

    @Option(names = "--servers", defaultValue = "3", description = "servers, 1 to 7 (default: ${DEFAULT-VALUE})")
    int servers;

    @Option(
            names = "--clients",
            defaultValue = "" + ChaosSettings.DEFAULT_CLIENTS,
            description = "clients, each on a session of its own; client i runs lock kind i %% kinds (default: "
                    + "${DEFAULT-VALUE})")
    int clients;

    @Option(
            names = "--threads",
            defaultValue = "" + ChaosSettings.DEFAULT_THREADS,
            description = "threads, at least --clients; thread i uses client i %% clients, and the threads of one "
                    + "client share its cohort locks (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(
            names = "--faults",
            defaultValue = "default",
            description = "the run: 'default' (every lock kind; session expiries, connection drops, server restarts, "
                    + "leader kills) or 'cohort' (the cohort kinds beside plain locks and Curator's mutex; connection "
                    + "silences shorter than the session timeout, lock nodes deleted by a stranger, clients closed "
                    + "under their threads, session expiries, connection drops) (default: ${DEFAULT-VALUE})")
    String faults;

    @Option(
            names = "--simulate",
            description = "run the deterministic simulator instead: simulated clients, threads, faults and ZooKeeper, "
                    + "seeds on every core, the invariants checked after every event; a failing seed is shrunk and "
                    + "printed with its last events; --seed is the first seed (default 1)")
    boolean simulate;

    @Option(
            names = "--seeds",
            defaultValue = "10000",
            description = "with --simulate: how many seeds (default: ${DEFAULT-VALUE})")
    long seeds;

    @Option(
            names = "--queue-views",
            description = "with --simulate: the simulated clients keep queue views (one persistent recursive watch per "
                    + "session and lock root answers the listings and watches)")
    boolean queueViews;

    @Option(
            names = "--partitions",
            description = "run on a real ensemble in Linux network namespaces instead (root only): 3 server JVMs, "
                    + "--clients workload JVMs (3 to 5, default 3) and an observer, each in a namespace of its own, "
                    + "and a seeded nemesis (cuts, partitions, kill -9, SIGSTOP, a stranger's deletes) for --minutes; "
                    + "prints the checkers' summary per lock kind and library, where the histories are and the "
                    + "replay line; exit status 1 on a zklock violation (Curator's rows are reported, not judged)")
    boolean partitions;

    @Option(
            names = "--minutes",
            description = "with --partitions: how long to run, in minutes (default: --seconds, 60)")
    Integer minutes;

    @Option(
            names = "--client-main",
            defaultValue = "dev.zklock.recipes.test.partition.PartitionClient",
            description = "with --partitions: the workload's main class (default: ${DEFAULT-VALUE})")
    String clientMain;

    @Option(
            names = "--observer-main",
            defaultValue = "dev.zklock.recipes.test.partition.PartitionObserver",
            description = "with --partitions: the observer's main class (default: ${DEFAULT-VALUE})")
    String observerMain;

    @Option(
            names = "--markdown",
            paramLabel = "FILE.md",
            description = "with --partitions: also write the run's report (PARTITIONS.md: the summary per lock kind "
                    + "and library, the faults, the replay line) and its timeline picture (FILE.png) beside it")
    Path markdown;

    private long barSeconds; // confined to the command's thread

    @Override
    public Integer call() throws Exception {
        checkOptions();
        if (partitions) {
            return partitionsRun()
                    .run(spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        if (simulate) {
            return new SimulateRun(
                            seed != null ? seed : 1, seeds, Runtime.getRuntime().availableProcessors(), queueViews)
                    .run(spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        Duration duration = Duration.ofSeconds(seconds);
        ChaosSettings settings = (faults.equals("cohort")
                        ? ChaosSettings.cohortFaults(runSeed, duration)
                        : ChaosSettings.defaults(runSeed, duration))
                .withClients(clients, threads);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        err.printf(
                "zklock torture: seed %d, %d s, %d server(s), %d clients, %d threads, %s faults; starting ZooKeeper...%n",
                runSeed, seconds, servers, clients, threads, faults);
        if (clients < settings.kinds().size()) {
            err.printf(
                    "note: client i runs lock kind i %% %d, so with %d clients only %s run%n",
                    settings.kinds().size(), clients, settings.kinds().subList(0, clients));
        }
        err.flush();
        Progress bar = new Progress(err, (int) seconds);
        ChaosReport report;
        try (EmbeddedZooKeeper zooKeeper = EmbeddedZooKeeper.startEnsemble(servers);
                RunClients made = new RunClients()) {
            report = Chaos.run(settings, zooKeeper, made::newClient, BASE_PATH, progress -> show(bar, progress));
            show(bar, report);
            bar.finish();
        }
        printReport(out, report, settings);
        return report.isClean() ? 0 : 1;
    }

    private PartitionsRun partitionsRun() {
        boolean clientsGiven = spec.commandLine().getParseResult().hasMatchedOption("--clients");
        int runClients = clientsGiven ? clients : 3;
        if (runClients < 3 || runClients > 5) {
            throw new ParameterException(
                    spec.commandLine(), "--clients must be 3 to 5 with --partitions, not " + runClients);
        }
        if (minutes != null && minutes < 1) {
            throw new ParameterException(spec.commandLine(), "--minutes must be at least 1, not " + minutes);
        }
        long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong();
        String length = minutes != null ? "--minutes " + minutes : "--seconds " + seconds;
        String replay = "zklock torture --partitions " + length + " --seed " + runSeed
                + (clientsGiven ? " --clients " + runClients : "");
        Duration runLength = minutes != null ? Duration.ofMinutes(minutes) : Duration.ofSeconds(seconds);
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        return new PartitionsRun(
                runSeed, runLength, runClients, clientMain, observerMain, replay, markdown, RunInfo.origin(args));
    }

    private void checkOptions() {
        if (seeds < 1) {
            throw new ParameterException(spec.commandLine(), "--seeds must be at least 1, not " + seeds);
        }
        if (seconds < 1) {
            throw new ParameterException(spec.commandLine(), "--seconds must be at least 1, not " + seconds);
        }
        if (servers < 1 || servers > 7) {
            throw new ParameterException(spec.commandLine(), "--servers must be 1 to 7, not " + servers);
        }
        if (clients < 1) {
            throw new ParameterException(spec.commandLine(), "--clients must be at least 1, not " + clients);
        }
        if (threads < clients) {
            throw new ParameterException(
                    spec.commandLine(), "--threads must be at least --clients (" + clients + "), not " + threads);
        }
        if (!faults.equals("default") && !faults.equals("cohort")) {
            throw new ParameterException(
                    spec.commandLine(), "--faults must be 'default' or 'cohort', not '" + faults + "'");
        }
        if (queueViews && !simulate) {
            throw new ParameterException(spec.commandLine(), "--queue-views is an option of --simulate");
        }
    }

    /** Moves the bar to the seconds elapsed and shows the counts. */
    private void show(Progress bar, ChaosReport progress) {
        for (; barSeconds < Math.min(seconds, progress.elapsed().toSeconds()); barSeconds++) {
            bar.stepDone();
        }
        bar.running(status(progress));
    }

    private static String status(ChaosReport progress) {
        SafetyReport safety = progress.safety();
        return String.format(
                "%d s, %d acquisitions, %d faults, violations %d",
                progress.elapsed().toSeconds(),
                progress.acquisitions(),
                progress.faultCount(),
                safety.overlaps() + safety.tokenRegressions() + safety.leakedNodes() + safety.stuckWaiters());
    }

    private void printReport(PrintWriter out, ChaosReport report, ChaosSettings settings) {
        SafetyReport safety = report.safety();
        out.printf(
                "seed              %d (replay: zklock torture --seconds %d --seed %d --servers %d --clients %d "
                        + "--threads %d --faults %s)%n",
                report.seed(), seconds, report.seed(), servers, clients, threads, faults);
        out.printf(
                "ran               %d s on %d server(s), %d clients, %d threads, %d lock paths per family%n",
                report.elapsed().toSeconds(), servers, settings.clients(), settings.threads(), settings.lockPaths());
        out.printf(
                "acquisitions      %d %s, timeouts %d%n",
                report.acquisitions(), new TreeMap<>(report.acquisitionsByKind()), report.timeouts());
        out.printf("faults            %d %s%n", report.faultCount(), faultsByKind(report.faults()));
        report.failedFaults().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(failed -> out.printf("  not injected    %d x %s%n", failed.getValue(), failed.getKey()));
        out.printf(
                "same node         %d %s (held the node of the hold before: a local pass, a cached node, local "
                        + "readers sharing one)%n",
                safety.sameNodeHolds(), new TreeMap<>(report.sameNodeByKind()));
        out.printf(
                "holds lost        %d (session ended or node deleted while held: not a violation; granted on a "
                        + "deleted node %d, up to %d ms after the delete)%n",
                safety.lostHolds(),
                safety.holdsOnDeletedNodes(),
                safety.longestDeletedNodeLag().toMillis());
        out.printf("errors            %s%n", report.errors().isEmpty() ? "none" : new TreeMap<>(report.errors()));
        if (!report.onClosedClients().isEmpty()) {
            out.printf(
                    "closed clients    %s (the last acquire ended %d ms after its close)%n",
                    new TreeMap<>(report.onClosedClients()),
                    report.longestAcquireAfterClose().toMillis());
        }
        out.printf("overlaps          %d%n", safety.overlaps());
        out.printf(
                "token regressions %d (a token not above the newest of a hold it follows)%n",
                safety.tokenRegressions());
        out.printf("leaked nodes      %d%n", safety.leakedNodes());
        out.printf("stuck waiters     %d%n", safety.stuckWaiters());
        for (String violation : safety.firstViolations()) {
            out.printf("  %s%n", violation);
        }
        out.println(report.isClean() ? "verdict           clean" : "verdict           VIOLATIONS (see above)");
        out.flush();
    }

    private static String faultsByKind(Map<FaultKind, Long> faults) {
        List<String> parts = new ArrayList<>();
        for (FaultKind kind : FaultKind.values()) {
            if (faults.containsKey(kind)) {
                parts.add(kind.name().toLowerCase(Locale.ROOT).replace('_', ' ') + " " + faults.get(kind));
            }
        }
        return parts.stream().collect(Collectors.joining(", ", "{", "}"));
    }

    /** The clients of one run, each named by the data of its nodes; all closed with it. Safe for use by threads. */
    private static final class RunClients implements AutoCloseable {
        private final List<CuratorFramework> made = new ArrayList<>();

        synchronized CuratorFramework newClient(String name, String connectString) {
            try {
                CuratorFramework client =
                        // A client of --faults cohort connects through proxies of its own, and must keep to them.
                        Clients.connect(
                                connectString,
                                name,
                                SESSION_TIMEOUT_MS,
                                CONNECTION_TIMEOUT_MS,
                                builder -> builder.ensembleTracker(false));
                made.add(client);
                return client;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while connecting client " + name, e);
            }
        }

        @Override
        public synchronized void close() {
            made.forEach(CuratorFramework::close);
        }
    }
}
