package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.RevocationWatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * A deterministic simulation of zklock's lock protocols: simulated clients of one simulated ZooKeeper, simulated
 * threads that acquire, hold and release locks of every kind through the engine's own state machines (the queue
 * machine, multi-locks among them, the local queue of a cohort, the lease machine of a semaphore), and faults, all
 * chosen by one seed, with the invariants checked at every step ({@link SimChecker}). A seed replays exactly; a
 * failing plan can be shrunk to the smallest one that still fails. Runs on the calling thread, with no ZooKeeper and
 * no threads of its own; stateless.
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
    static final String MUTEX_PATH = "/sem/locks";
    static final String LEASES_PATH = "/sem/leases";
    private static final List<String> PATHS =
            List.of(EXCLUSIVE_PATH, SECOND_PATH, READ_WRITE_PATH, MUTEX_PATH, LEASES_PATH);
    private static final long KEEP_IDLE_MICROS = 3_000;
    private static final CohortSettings COHORT = new CohortSettings(4, 2_000_000, 0);
    private static final CohortSettings CACHED = new CohortSettings(4, 2_000_000, KEEP_IDLE_MICROS * 1000);

    /** The client the lock paths name: never started, no request goes through it (the simulated clients send). */
    private static final CuratorFramework NAMES = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));

    private Simulation() {}

    /** Runs the plan {@code seed} chooses. */
    public static SimReport run(long seed, SimSettings settings) {
        return run(SimPlan.of(seed, settings), settings);
    }

    /** Runs {@code plan}, its delays drawn from its seed. */
    public static SimReport run(SimPlan plan, SimSettings settings) {
        return new Run(plan, settings).run();
    }

    /** Returns the smallest plan found, one step smaller at a time, that still fails as {@code failed} did. */
    public static SimReport shrink(SimReport failed, SimSettings settings) {
        SimReport smallest = failed;
        boolean smaller = true;
        while (smaller) {
            smaller = false;
            for (SimPlan plan : smallest.plan().smaller()) {
                SimReport report = run(plan, settings);
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
        private final List<Actor> actors = new ArrayList<>();
        private final Map<String, SimCohort> cohorts = new HashMap<>();

        Run(SimPlan plan, SimSettings settings) {
            this.plan = plan;
            this.settings = settings;
            this.world = new SimWorld(plan.seed(), settings.sessionTimeoutMicros());
            this.maxLeases = 1 + (int) Math.floorMod(plan.seed(), 2L); // a semaphore of 1 or 2, by the seed
            this.checker = new SimChecker(world, maxLeases);
        }

        SimReport run() {
            for (String path : PATHS) {
                world.server.makePath(path);
            }
            for (int i = 0; i < plan.clients(); i++) {
                clients.add(new SimClient("client-" + i, world));
            }
            for (int i = 0; i < plan.threads().size(); i++) {
                SimPlan.Thread thread = plan.threads().get(i);
                Actor actor = new Actor("t" + i + "/" + thread.kind().name().toLowerCase(), thread);
                actors.add(actor);
                world.after(world.delay(0, 500), actor.name + " starts", actor::next);
            }
            for (SimPlan.Fault fault : plan.faults()) {
                world.at(fault.atMicros(), "fault " + fault.kind(), () -> inject(fault));
            }
            long horizon = settings.faultWindowMicros() + 200 * settings.sessionTimeoutMicros();
            while (world.step(horizon) && !allDone()) {
                // run
            }
            for (Actor actor : actors) {
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
            return new SimReport(
                    plan,
                    List.copyOf(checker.violations()),
                    world.trace(),
                    world.steps(),
                    checker.acquires(),
                    checker.granted(),
                    world.behindOwn());
        }

        private boolean allDone() {
            for (Actor actor : actors) {
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

        private SimCohort cohort(SimClient client, SimPlan.Kind kind) {
            return cohorts.computeIfAbsent(client.name + "/" + kind, key -> switch (kind) {
                case COHORT -> new SimCohort(
                        world,
                        checker,
                        client,
                        path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()),
                        COHORT,
                        false,
                        key);
                case COHORT_CACHED -> new SimCohort(
                        world,
                        checker,
                        client,
                        path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()),
                        CACHED,
                        false,
                        key);
                case COHORT_READ -> new SimCohort(
                        world,
                        checker,
                        client,
                        path(READ_WRITE_PATH, "__READ__", LockDriver.read()),
                        COHORT,
                        true,
                        key);
                case COHORT_WRITE -> new SimCohort(
                        world,
                        checker,
                        client,
                        path(READ_WRITE_PATH, "__WRIT__", LockDriver.write()),
                        COHORT,
                        false,
                        key);
                default -> throw new AssertionError("not a cohort kind: " + kind);
            });
        }

        private static LockPath path(String path, String lockName, LockDriver driver) {
            return new LockPath(NAMES, path, lockName, driver, null);
        }

        /** One simulated thread: acquires, holds and releases its lock as many times as its plan says. */
        private final class Actor {
            final String name;
            final SimPlan.Thread thread;
            final SimClient client;
            int left;
            boolean done;
            String acquiring;

            Actor(String name, SimPlan.Thread thread) {
                this.name = name;
                this.thread = thread;
                this.client = clients.get(thread.client());
                this.left = thread.acquires();
            }

            void next() {
                if (left == 0 || client.isClosed()) {
                    done = true;
                    return;
                }
                left--;
                long deadline =
                        world.random.nextInt(4) == 0 ? SimAcquisition.FOREVER : world.now() + world.delay(0, 3_000);
                acquiring = thread.kind() + " until " + (deadline == SimAcquisition.FOREVER ? "forever" : deadline);
                checker.began();
                boolean interrupts = world.random.nextInt(10) == 0;
                switch (thread.kind()) {
                    case EXCLUSIVE -> plain(
                            List.of(path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive())),
                            SimChecker.Mode.EXCLUSIVE,
                            deadline,
                            interrupts);
                    case READ -> plain(
                            List.of(path(READ_WRITE_PATH, "__READ__", LockDriver.read())),
                            SimChecker.Mode.READ,
                            deadline,
                            interrupts);
                    case WRITE -> plain(
                            List.of(path(READ_WRITE_PATH, "__WRIT__", LockDriver.write())),
                            SimChecker.Mode.WRITE,
                            deadline,
                            interrupts);
                    case MULTI -> plain(
                            List.of(
                                    path(EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()),
                                    path(SECOND_PATH, "lock-", LockDriver.exclusive())),
                            SimChecker.Mode.EXCLUSIVE,
                            deadline,
                            interrupts);
                    case SEMAPHORE -> semaphore(deadline, interrupts);
                    default -> local(deadline, interrupts);
                }
            }

            private void plain(List<LockPath> queues, SimChecker.Mode mode, long deadline, boolean interrupts) {
                SimAcquisition acquisition =
                        new SimAcquisition(world, client, queues, null, deadline, name, outcome(deadline, nodes -> {
                            if (mode == SimChecker.Mode.WRITE && world.random.nextInt(3) == 0) {
                                holdAndDowngrade(nodes.get(0), deadline);
                            } else {
                                holdAndRelease(nodes, mode, deadline, "its own node");
                            }
                        }));
                acquisition.start();
                interruptLater(interrupts, acquisition::abandon);
            }

            private void semaphore(long deadline, boolean interrupts) {
                int count = 1 + world.random.nextInt(maxLeases);
                SimSemaphore semaphore = new SimSemaphore(
                        world,
                        client,
                        path(MUTEX_PATH, "lock-", LockDriver.exclusive()),
                        path(LEASES_PATH, "lease-", LockDriver.exclusive()),
                        () -> maxLeases,
                        count,
                        deadline,
                        name,
                        outcome(
                                deadline,
                                nodes -> holdAndRelease(nodes, SimChecker.Mode.LEASE, deadline, "its leases")));
                semaphore.start();
                interruptLater(interrupts, semaphore::abandon);
            }

            private void local(long deadline, boolean interrupts) {
                SimCohort cohort = cohort(client, thread.kind());
                SimChecker.Mode mode = thread.kind() == SimPlan.Kind.COHORT_READ
                        ? SimChecker.Mode.READ
                        : thread.kind() == SimPlan.Kind.COHORT_WRITE
                                ? SimChecker.Mode.WRITE
                                : SimChecker.Mode.EXCLUSIVE;
                cohort.acquire(name, deadline, new SimCohort.Outcome() {
                    @Override
                    public void held(Hold hold, String how) {
                        checker.ended(name, deadline);
                        SimChecker.Held held = checker.granted(name, client, hold, mode, how, cohort::knowsGone);
                        world.after(world.delay(0, 500), name + " releases", () -> {
                            checker.released(held);
                            cohort.release(hold);
                            pause();
                        });
                    }

                    @Override
                    public void ended(String why) {
                        endedWithout(deadline, why);
                    }
                });
                interruptLater(interrupts, () -> cohort.interrupt(name));
            }

            /**
             * The write lock came back: holds it a while, then takes the read lock beside it (a downgrade: a plain read
             * node that ranks with the write node), lets the write node go, holds the read lock a while, lets it go.
             */
            private void holdAndDowngrade(LockNode write, long deadline) {
                checker.ended(name, deadline);
                SimChecker.Held writeHeld =
                        checker.granted(name, client, new Hold(write, 0), SimChecker.Mode.WRITE, "its own node", null);
                Runnable releaseWrite = () -> {
                    checker.released(writeHeld);
                    client.untrack(write);
                    world.releasing(List.of(write));
                    SimDeletes.deleteLater(world, client, List.of(write));
                };
                world.after(world.delay(0, 300), name + " downgrades", () -> {
                    long readDeadline =
                            world.random.nextInt(2) == 0 ? SimAcquisition.FOREVER : world.now() + world.delay(0, 3_000);
                    checker.began();
                    new SimAcquisition(
                                    world,
                                    client,
                                    List.of(path(READ_WRITE_PATH, "__READ__", LockDriver.read())),
                                    write,
                                    readDeadline,
                                    name + " downgrading",
                                    new SimAcquisition.Outcome() {
                                        @Override
                                        public void granted(List<LockNode> nodes) {
                                            Hold read = Hold.beside(nodes.get(0), new Hold(write, 0));
                                            releaseWrite.run();
                                            holdAll(
                                                    List.of(read),
                                                    hold -> checker.grantedBeside(name, client, hold, write),
                                                    readDeadline);
                                        }

                                        @Override
                                        public void ended(String why) {
                                            releaseWrite.run();
                                            endedWithout(readDeadline, why);
                                        }
                                    })
                            .start();
                });
            }

            /** The acquire came back with its own nodes: holds them a while, then deletes them. */
            private void holdAndRelease(List<LockNode> nodes, SimChecker.Mode mode, long deadline, String how) {
                holdAll(
                        nodes.stream().map(node -> new Hold(node, 0)).toList(),
                        hold -> checker.granted(name, client, hold, mode, how, null),
                        deadline);
            }

            /** Holds {@code holds}, each checked by {@code grant}, a while, then lets their nodes go. */
            private void holdAll(List<Hold> holds, Function<Hold, SimChecker.Held> grant, long deadline) {
                checker.ended(name, deadline);
                List<SimChecker.Held> held = holds.stream().map(grant).toList();
                List<LockNode> nodes = holds.stream().map(Hold::node).toList();
                world.after(world.delay(0, 500), name + " releases", () -> {
                    held.forEach(checker::released);
                    for (LockNode node : nodes) {
                        client.untrack(node);
                    }
                    world.releasing(nodes);
                    SimDeletes.deleteLater(world, client, nodes);
                    pause();
                });
            }

            /** How a plain acquire, a multi-lock's or a semaphore's ends: {@code granted}, or without the lock. */
            private SimAcquisition.Outcome outcome(long deadline, Consumer<List<LockNode>> granted) {
                return new SimAcquisition.Outcome() {
                    @Override
                    public void granted(List<LockNode> nodes) {
                        granted.accept(nodes);
                    }

                    @Override
                    public void ended(String why) {
                        endedWithout(deadline, why);
                    }
                };
            }

            /** If the plan says so, interrupts the acquire under way at a time the seed chooses. */
            private void interruptLater(boolean interrupts, Runnable interrupt) {
                if (interrupts) {
                    world.after(world.delay(0, 2_000), name + " is interrupted", interrupt);
                }
            }

            /** The acquire came back without the lock. */
            private void endedWithout(long deadline, String why) {
                checker.ended(name, deadline);
                world.note(name + " ended: " + why);
                pause();
            }

            private void pause() {
                acquiring = null;
                world.after(world.delay(0, 500), name + " goes on", this::next);
            }
        }
    }
}
