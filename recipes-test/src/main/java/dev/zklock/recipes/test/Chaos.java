package dev.zklock.recipes.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chaos workload: many clients, each on its own session, contend for a few lock paths with locks of several
 * {@linkplain LockKind kinds} (zklock's and Curator's, sharing the paths of their family), while real
 * {@linkplain FaultKind faults} hit them: session expiries, dropped and silenced connections, server restarts and, in an
 * ensemble, leader kills, lock nodes deleted by a stranger, clients closed under their threads. A
 * {@link SafetyMonitor} records every hold and wait; the run ends with a check that no lock node was left behind once
 * every thread stopped.
 *
 * <p>Clients stand for processes. Thread {@code i} uses client {@code i % clients}; the threads of one client share one
 * lock object per path for kinds owned per thread ({@link LockKind#isOwnedPerThread()}), so a cohort lock's threads
 * really do pass it among themselves, and get lock objects of their own otherwise. A client that a fault closes is
 * replaced by a new one of the same name, as a process that restarts, with new lock objects for its threads. When the
 * settings weigh {@link FaultKind#CONNECTION_SILENCE}, every client connects through {@link ClientProxies} of its own;
 * when they weigh {@link FaultKind#NODE_DELETE}, one more client, {@code stranger}, deletes lock nodes.
 *
 * <p>The end-of-run check lists the lock paths with the clients still open (closing a session would delete its nodes
 * whether or not the locks did), and waits, polling, until no lock node is left: up to the longest
 * {@linkplain LockKind#keepIdle() keepIdle} of the kinds, within which a cached node is a live lock node of a live
 * session rather than a leak, plus a settling time for deletes that a dropped connection deferred. A node still there
 * after that is counted as left behind, cached or not; one whose session is the client of a
 * {@linkplain LockKind#isReference() reference kind} (Curator's) is reported in {@link ChaosReport#referenceNodesLeft()}
 * instead: it is Curator's recipe's to delete.
 *
 * <pre>{@code
 * ChaosReport report = Chaos.run(ChaosSettings.defaults(seed, Duration.ofSeconds(60)), servers,
 *         (name, connectString) -> connect(name, connectString), "/chaos", progress -> {});
 * assertThat(report.safety().overlaps()).as(report.toString()).isZero();
 * }</pre>
 *
 * <p>One seed drives everything random: the fault plan and every thread's choices of lock, timeout and hold time. A run
 * with the same seed and settings replays them; the interleaving of threads differs from run to run, so the seed
 * reproduces the scenario, not the exact timing. The suite {@code ChaosIT} and the command {@code zklock torture} are
 * the two ways to run it.
 *
 * <p>Thread-safe: a run keeps all its state to itself. The calling thread reports progress; the workload runs on daemon
 * threads of its own.
 */
public final class Chaos {
    /** How long a thread may take to finish its round after the workload stops, beyond its own acquire timeout. */
    private static final Duration FINISH_GRACE = Duration.ofSeconds(60);

    /** How long deferred deletes get to land before the nodes left count as leaked. */
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(1);

    private static final Logger logger = LoggerFactory.getLogger(Chaos.class);

    private Chaos() {}

    /**
     * Runs the workload and the faults for {@code settings.duration()}, then stops them, waits for every thread to
     * finish its round, and checks that no lock node is left; returns what happened.
     *
     * @param settings what to run
     * @param servers the servers to run against (and to stop and restart)
     * @param clientFactory makes a started, connected client from a name and a connect string (the servers', or the
     *     client's proxies'); it must keep to that connect string (Curator: {@code ensembleTracker(false)}), or the
     *     client leaves its proxies at its first reconnect and silences fail. The run closes every client it made
     *     before it returns (closing them again does no harm)
     * @param basePath the path under which the run puts its lock paths, {@code settings.lockPaths()} per family of
     *     kinds ({@code basePath/mutex-0}, ..., {@code basePath/read-write-0}, ...); the locks make it if need be
     * @param progress told of the counts about once a second while the workload runs, on the calling thread
     * @return the report; check {@link ChaosReport#isClean()}
     * @throws InterruptedException if the calling thread is interrupted (the workload is stopped first)
     */
    public static ChaosReport run(
            ChaosSettings settings,
            EmbeddedZooKeeper servers,
            BiFunction<String, String, CuratorFramework> clientFactory,
            String basePath,
            Consumer<ChaosReport> progress)
            throws InterruptedException {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(clientFactory, "clientFactory");
        Objects.requireNonNull(basePath, "basePath");
        Objects.requireNonNull(progress, "progress");
        SafetyMonitor monitor = SafetyMonitor.create();
        ChaosCounters counters = new ChaosCounters();
        SplittableRandom seeds = new SplittableRandom(settings.seed());
        List<FaultInjector.Planned> plan = FaultInjector.plan(settings, servers.size(), seeds.split());
        Map<String, List<String>> pathsByFamily = pathsByFamily(settings, basePath);
        List<String> paths =
                pathsByFamily.values().stream().flatMap(List::stream).toList();
        List<AutoCloseable> made = new ArrayList<>();
        try {
            List<ClientSlot> slots = slots(settings, servers, clientFactory, pathsByFamily, made);
            CuratorFramework stranger = stranger(settings, servers, clientFactory, made);
            CountDownLatch stop = new CountDownLatch(1);
            List<Thread> actors = actors(settings, slots, monitor, counters, seeds, stop);
            long start = System.nanoTime();
            Thread injector = daemon(
                    new FaultInjector(
                            plan,
                            servers,
                            slots,
                            paths,
                            stranger,
                            strangerPaths(settings, pathsByFamily),
                            monitor,
                            counters,
                            stop,
                            start),
                    "chaos-fault-injector");
            actors.forEach(Thread::start);
            injector.start();
            Duration elapsed = work(settings, start, stop, counters, monitor, progress);
            finish(settings, servers, injector, actors);
            List<Thread> stuck = actors.stream().filter(Thread::isAlive).toList();
            CuratorFramework observer = clientFactory.apply("observer", servers.connectString());
            made.add(observer);
            Map<String, List<String>> referenceNodesLeft = checkNoNodesLeft(
                    monitor,
                    observer,
                    nodeParents(settings, pathsByFamily),
                    settleTime(settings),
                    referenceSessions(slots));
            for (Thread thread : stuck) {
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            return counters.report(settings.seed(), elapsed, referenceNodesLeft, monitor.report());
        } finally {
            closeAll(made);
        }
    }

    /**
     * Waits up to {@code settle} for the lock nodes under {@code parents} to go, then records with the monitor those
     * left behind by sessions other than {@code references}, and returns, by lock path, those the reference sessions
     * left, each with its session.
     */
    static Map<String, List<String>> checkNoNodesLeft(
            SafetyMonitor monitor,
            CuratorFramework observer,
            List<String> parents,
            Duration settle,
            Set<Long> references)
            throws InterruptedException {
        Map<String, List<String>> referenceNodesLeft = new TreeMap<>();
        LockNodesLeft.afterSettle(observer, parents, settle).forEach((lockPath, nodes) -> {
            monitor.nodesLeft(lockPath, LockNodesLeft.described(nodes, session -> !references.contains(session)));
            List<String> reference = LockNodesLeft.described(nodes, references::contains);
            if (!reference.isEmpty()) {
                referenceNodesLeft.put(lockPath, reference);
            }
        });
        return referenceNodesLeft;
    }

    /** The sessions of the slots whose kind is a {@linkplain LockKind#isReference() reference kind} (Curator's). */
    private static Set<Long> referenceSessions(List<ClientSlot> slots) {
        Set<Long> references = new HashSet<>();
        for (ClientSlot slot : slots) {
            if (slot.kind().isReference()) {
                references.add(Sessions.current(slot.current().client()));
            }
        }
        return references;
    }

    /** Reports progress until the run's time is up, then tells the threads to stop; returns how long they ran. */
    private static Duration work(
            ChaosSettings settings,
            long start,
            CountDownLatch stop,
            ChaosCounters counters,
            SafetyMonitor monitor,
            Consumer<ChaosReport> progress)
            throws InterruptedException {
        try {
            long end = start + settings.duration().toNanos();
            for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
                stop.await(Math.min(left, PROGRESS_EVERY.toNanos()), TimeUnit.NANOSECONDS);
                progress.accept(counters.report(settings.seed(), elapsed(start), monitor.report(stuckAfter(settings))));
            }
        } finally {
            stop.countDown();
        }
        return elapsed(start);
    }

    /** Makes the client that deletes lock nodes, if the run has that fault; null otherwise. */
    private static CuratorFramework stranger(
            ChaosSettings settings,
            EmbeddedZooKeeper servers,
            BiFunction<String, String, CuratorFramework> clientFactory,
            List<AutoCloseable> made) {
        if (settings.faultWeights().getOrDefault(FaultKind.NODE_DELETE, 0) == 0) {
            return null;
        }
        CuratorFramework stranger = clientFactory.apply("stranger", servers.connectString());
        made.add(stranger);
        return stranger;
    }

    /** Makes the run's clients, each through proxies of its own if the run silences connections. */
    private static List<ClientSlot> slots(
            ChaosSettings settings,
            EmbeddedZooKeeper servers,
            BiFunction<String, String, CuratorFramework> clientFactory,
            Map<String, List<String>> pathsByFamily,
            List<AutoCloseable> made) {
        boolean proxied = settings.faultWeights().getOrDefault(FaultKind.CONNECTION_SILENCE, 0) > 0;
        List<ClientSlot> slots = new ArrayList<>();
        for (int c = 0; c < settings.clients(); c++) {
            LockKind kind = kindOf(settings, c);
            ClientProxies proxies = proxied ? proxiesTo(servers) : null;
            if (proxies != null) {
                made.add(proxies);
            }
            ClientSlot slot = new ClientSlot(
                    clientName(c),
                    kind,
                    pathsByFamily.get(kind.family()),
                    clientFactory,
                    servers.connectString(),
                    proxies);
            made.add(slot);
            slots.add(slot);
        }
        return slots;
    }

    private static ClientProxies proxiesTo(EmbeddedZooKeeper servers) {
        try {
            return ClientProxies.to(servers);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the proxies of a chaos client to " + servers, e);
        }
    }

    /**
     * Returns the lock paths whose lock nodes a stranger may delete: those of the families whose every kind keeps its
     * nodes as children of the lock path itself, so that the holds a deleted node ends are the holds of that path with
     * its creation zxid. A semaphore's lease count rests on its internal mutex, whose holds the monitor does not see.
     */
    private static List<String> strangerPaths(ChaosSettings settings, Map<String, List<String>> pathsByFamily) {
        List<String> paths = new ArrayList<>();
        pathsByFamily.forEach((family, familyPaths) -> {
            boolean ownChildren = settings.kinds().stream()
                    .filter(kind -> kind.family().equals(family))
                    .allMatch(kind -> familyPaths.stream()
                            .allMatch(path -> kind.nodeParents(path).equals(List.of(path))));
            if (ownChildren) {
                paths.addAll(familyPaths);
            }
        });
        return paths;
    }

    /** Closes in reverse order: a slot's clients before the proxies they connect through. */
    private static void closeAll(List<AutoCloseable> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            try {
                made.get(i).close();
            } catch (Exception e) {
                logger.warn("chaos: could not close {}", made.get(i), e);
            }
        }
    }

    /** Returns the paths whose children are the lock nodes of the run, as each family's kinds lay them out. */
    private static List<String> nodeParents(ChaosSettings settings, Map<String, List<String>> pathsByFamily) {
        Set<String> parents = new LinkedHashSet<>();
        for (LockKind kind : settings.kinds()) {
            for (String path : pathsByFamily.get(kind.family())) {
                parents.addAll(kind.nodeParents(path));
            }
        }
        return List.copyOf(parents);
    }

    /** Each family of kinds gets lock paths of its own: {@code basePath/<family>-<i>}. */
    private static Map<String, List<String>> pathsByFamily(ChaosSettings settings, String basePath) {
        Map<String, List<String>> paths = new LinkedHashMap<>();
        for (LockKind kind : settings.kinds()) {
            if (kind.pathsPerLock() > settings.lockPaths()) {
                throw new IllegalArgumentException(kind.name() + " takes " + kind.pathsPerLock()
                        + " lock paths, more than the " + settings.lockPaths() + " of the settings");
            }
            paths.computeIfAbsent(kind.family(), family -> IntStream.range(0, settings.lockPaths())
                    .mapToObj(i -> basePath + "/" + family + "-" + i)
                    .toList());
        }
        return paths;
    }

    private static List<Thread> actors(
            ChaosSettings settings,
            List<ClientSlot> slots,
            SafetyMonitor monitor,
            ChaosCounters counters,
            SplittableRandom seeds,
            CountDownLatch stop) {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.threads(); t++) {
            int c = t % slots.size();
            LockKind kind = kindOf(settings, c);
            boolean ownLockObjects = !kind.isOwnedPerThread() && t >= slots.size();
            String name = clientName(c) + "/" + kind.name() + "/t" + t;
            threads.add(daemon(
                    new ChaosActor(
                            name, kind, slots.get(c), ownLockObjects, monitor, counters, seeds.split(), settings, stop),
                    "chaos-" + name));
        }
        return threads;
    }

    /** Waits for the injector's last fault and the threads' last rounds, and brings every server back. */
    private static void finish(ChaosSettings settings, EmbeddedZooKeeper servers, Thread injector, List<Thread> actors)
            throws InterruptedException {
        injector.join(TimeUnit.MINUTES.toMillis(2));
        try {
            servers.restartStopped();
        } catch (Exception e) {
            throw new IllegalStateException("cannot bring the servers back after the chaos run", e);
        }
        long deadline = System.nanoTime() + stuckAfter(settings).toNanos();
        for (Thread actor : actors) {
            actor.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    private static LockKind kindOf(ChaosSettings settings, int client) {
        return settings.kinds().get(client % settings.kinds().size());
    }

    /** How long nodes get to go once every thread stopped: the longest keepIdle of the kinds, plus SETTLE. */
    private static Duration settleTime(ChaosSettings settings) {
        return settings.kinds().stream()
                .map(LockKind::keepIdle)
                .max(Duration::compareTo)
                .orElse(Duration.ZERO)
                .plus(SETTLE);
    }

    private static Duration stuckAfter(ChaosSettings settings) {
        return settings.maxAcquireTimeout().plus(FINISH_GRACE);
    }

    private static Duration elapsed(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static String clientName(int index) {
        return String.format("client-%02d", index);
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
