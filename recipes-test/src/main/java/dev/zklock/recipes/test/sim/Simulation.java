package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.LeaseQueue;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.locks.engine.RevocationWatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * A deterministic simulation of zklock's lock protocols: simulated clients of one simulated ZooKeeper, simulated
 * threads that acquire, hold and release locks of every kind through the engine's own code (its runners, blocking on
 * simulated threads and asynchronous on the seed's events, the cohort, the lease queue, admission and the tracker),
 * and faults, all chosen by one seed, with the invariants checked at every step ({@link SimChecker}). A seed replays
 * exactly; a failing plan can be shrunk to the smallest one that still fails. Runs on the calling thread and on
 * simulated threads ({@link SimThread}) that run only while it waits for them, one at a time, and end with the run;
 * no ZooKeeper; stateless.
 *
 * <pre>{@code
 * SimReport report = Simulation.run(seed, SimSettings.defaults());
 * if (!report.isClean()) {
 *     System.out.println(Simulation.shrink(report, SimSettings.defaults()).describe());
 * }
 * }</pre>
 */
public final class Simulation {
    static final String EXCLUSIVE_PATH = "/locks/a";
    static final String SECOND_PATH = "/locks/b";
    static final String READ_WRITE_PATH = "/locks/rw";
    static final String SEMAPHORE_PATH = "/sem";
    static final String MUTEX_PATH = SEMAPHORE_PATH + "/" + LeaseQueue.LOCK_PARENT;
    static final String LEASES_PATH = SEMAPHORE_PATH + "/" + LeaseQueue.LEASE_PARENT;
    private static final List<String> PATHS =
            List.of(EXCLUSIVE_PATH, SECOND_PATH, READ_WRITE_PATH, MUTEX_PATH, LEASES_PATH);
    private static final long KEEP_IDLE_MICROS = 3_000;

    /** The tally of local grants of a cohort's node (a pass, a join, an idle node taken) by the engine's Cohort. */
    static final String LOCAL_PASS = "local grant by a cohort";

    private static final CohortSettings COHORT = new CohortSettings(4, 2_000_000, 0);
    private static final CohortSettings CACHED = new CohortSettings(4, 2_000_000, KEEP_IDLE_MICROS * 1000);

    /** The client the lock paths name: never started, no request goes through it (the simulated clients send). */
    /** Names the simulation's lock paths and nodes; sends nothing ({@link SimClient#path}). */
    static final CuratorFramework NAMES = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));

    private Simulation() {}

    /** Runs the plan {@code seed} chooses. */
    public static SimReport run(long seed, SimSettings settings) {
        return run(SimPlan.of(seed, settings), settings);
    }

    /** Runs {@code plan}, its delays drawn from its seed. */
    public static SimReport run(SimPlan plan, SimSettings settings) {
        return new Run(plan, settings).run();
    }

    /**
     * Returns the smallest plan found, one step smaller at a time ({@link SimPlan#smaller}: fewer threads, acquires and
     * faults, then shorter delays and sooner faults), that still fails as {@code failed} did.
     */
    public static SimReport shrink(SimReport failed, SimSettings settings) {
        return shrink(failed, plan -> run(plan, settings));
    }

    /** As {@link #shrink(SimReport, SimSettings)}, each candidate plan run by {@code runner}. */
    static SimReport shrink(SimReport failed, Function<SimPlan, SimReport> runner) {
        SimReport smallest = failed;
        boolean smaller = true;
        while (smaller) {
            smaller = false;
            for (SimPlan plan : smallest.plan().smaller()) {
                SimReport report = runner.apply(plan);
                if (!report.isClean()) {
                    smallest = report;
                    smaller = true;
                    break;
                }
            }
        }
        return smallest;
    }

    /** One run of one plan. */
    private static final class Run {
        private final SimPlan plan;
        private final SimSettings settings;
        private final SimWorld world;
        private final int maxLeases;
        private final SimChecker checker;
        private final List<SimClient> clients = new ArrayList<>();
        private final List<SimActor> actors = new ArrayList<>();
        private final Map<String, LockCore> cohorts = new HashMap<>();

        Run(SimPlan plan, SimSettings settings) {
            this.plan = plan;
            this.settings = settings;
            this.world = new SimWorld(plan.seed(), settings.sessionTimeoutMicros(), plan.delayPercent());
            this.maxLeases = 1 + (int) Math.floorMod(plan.seed(), 2L); // a semaphore of 1 or 2, by the seed
            this.checker = new SimChecker(world, maxLeases);
        }

        SimReport run() {
            for (String path : PATHS) {
                world.server.makePath(path);
            }
            for (int i = 0; i < plan.clients(); i++) {
                clients.add(new SimClient("client-" + i, world, settings.queueViews()));
            }
            for (int i = 0; i < plan.threads().size(); i++) {
                SimPlan.Thread thread = plan.threads().get(i);
                SimActor actor = new SimActor(
                        "t" + i + "/" + thread.kind().name().toLowerCase(),
                        thread,
                        clients.get(thread.client()),
                        world,
                        checker,
                        maxLeases,
                        this::cohort);
                actors.add(actor);
                world.after(world.delay(0, 500), actor.name + " starts", actor::next);
            }
            for (SimPlan.Fault fault : plan.faults()) {
                world.at(fault.atMicros(), "fault " + fault.kind(), () -> inject(fault));
            }
            long horizon = settings.faultWindowMicros() + 200 * settings.sessionTimeoutMicros();
            try {
                while (world.step(horizon) && !allDone()) {
                    // run
                }
            } catch (RuntimeException | AssertionError thrown) {
                // The engine broke one of its own assertions, or threw where nothing catches (on a world event: the
                // event thread's, a timer's): a violation, with the trace up to it, and nothing checked after it.
                checker.violation("the trace's last event threw %s, at %s", thrown, topFrames(thrown));
                return report();
            }
            for (SimActor actor : actors) {
                if (!actor.done) {
                    checker.violation("%s never came back (acquiring %s)", actor.name, actor.acquiring);
                }
            }
            long settle = world.now() + 3 * settings.sessionTimeoutMicros();
            while (world.step(settle)) {
                // idle nodes expire, background deletes land, killed sessions time out at the server
            }
            for (String path : PATHS) {
                for (SimServer.Node node : world.server.childrenOf(path).values()) {
                    checker.violation("node left behind: %s (session 0x%s)", node.path, Long.toHexString(node.owner));
                }
            }
            return report();
        }

        /** The report of the run as it stands; its threads stopped and its clients disposed after it is made. */
        private SimReport report() {
            SimReport report = new SimReport(
                    plan,
                    List.copyOf(checker.violations()),
                    world.trace(),
                    world.steps(),
                    checker.acquires(),
                    checker.granted(),
                    world.tallies(),
                    checker.overlaps().explained(),
                    checker.overlaps().longestMicros());
            world.stopThreads(); // after the report: what a thread still waiting does as it ends comes after the run
            clients.forEach(SimClient::dispose); // after the report: what the disposal tells comes after the run
            return report;
        }

        /** The first frames of {@code thrown}'s stack, where it was thrown. */
        private static String topFrames(Throwable thrown) {
            StackTraceElement[] frames = thrown.getStackTrace();
            return Arrays.stream(frames, 0, Math.min(4, frames.length))
                    .map(StackTraceElement::toString)
                    .collect(Collectors.joining(" < "));
        }

        private boolean allDone() {
            for (SimActor actor : actors) {
                if (!actor.done) {
                    return false;
                }
            }
            return true;
        }

        private void inject(SimPlan.Fault fault) {
            SimClient victim = clients.get(fault.target() % clients.size());
            long timeout = settings.sessionTimeoutMicros();
            switch (fault.kind()) {
                case SUSPEND -> victim.suspend(world.delay(timeout / 4, timeout * 3 / 4));
                case EXPIRE -> victim.expireOnServer();
                case KILL -> victim.killOnClient();
                case CLOSE -> victim.close();
                case STRANGER_DELETE -> {
                    String doomed = pick(fault);
                    if (doomed != null) {
                        world.note("a stranger deletes " + doomed);
                        checker.strangerDeleted(doomed);
                        world.server.delete(doomed);
                    }
                }
                case REVOKE -> {
                    String asked = pick(fault);
                    if (asked != null) {
                        world.note("a stranger asks " + asked + " to let go");
                        world.server.setData(asked, RevocationWatch.REVOKE_MESSAGE);
                    }
                }
            }
        }

        /** The lock node a stranger's fault falls on, or null if none stands. */
        private String pick(SimPlan.Fault fault) {
            List<SimServer.Node> nodes = new ArrayList<>();
            for (String path : PATHS) {
                nodes.addAll(world.server.childrenOf(path).values());
            }
            nodes.sort((a, b) -> Long.compare(a.czxid, b.czxid)); // names carry random ids: creation order
            return nodes.isEmpty() ? null : nodes.get(fault.target() % nodes.size()).path;
        }

        /**
         * The client's cohort lock object of {@code kind}, as a lock built with local hand-off makes it: the engine's
         * {@link LockCore} with its {@code Cohort}, revocable (Curator's protocol, as the engine's {@code
         * RevocationWatch} watches it); a read cohort's writer is the client's write cohort on the same path, as a
         * read/write lock's pair.
         */
        private LockCore cohort(SimClient client, SimPlan.Kind kind) {
            String key = client.name + "/" + kind;
            LockCore known = cohorts.get(key);
            if (known != null) {
                return known;
            }
            LockCore made =
                    switch (kind) {
                        case COHORT -> cohortOf(
                                client.path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()), COHORT, false, null);
                        case COHORT_CACHED -> cohortOf(
                                client.path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()), CACHED, false, null);
                        case COHORT_READ -> cohortOf(
                                client.path(READ_WRITE_PATH, "__READ__", LockDriver.read()),
                                COHORT,
                                true,
                                cohort(client, SimPlan.Kind.COHORT_WRITE));
                        case COHORT_WRITE -> cohortOf(
                                client.path(READ_WRITE_PATH, "__WRIT__", LockDriver.write()), COHORT, false, null);
                        default -> throw new AssertionError("not a cohort kind: " + kind);
                    };
            cohorts.put(key, made);
            return made;
        }

        private LockCore cohortOf(LockPath path, CohortSettings settings, boolean shared, LockCore writer) {
            path.setRevocation(new RevocationWatch(() -> {}, Runnable::run));
            path.setHooks(new QueueHooks() {
                @Override
                public void passed(String lockPath, String ourNode) {
                    world.tally(LOCAL_PASS);
                    if (Thread.currentThread() instanceof SimThread thread) {
                        thread.passedLocally(ourNode);
                    }
                }
            });
            return LockCore.withCohort(path, settings, shared, writer);
        }
    }
}
