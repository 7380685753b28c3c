package dev.zklock.recipes.test.sim;

import static dev.zklock.recipes.test.sim.Simulation.EXCLUSIVE_PATH;
import static dev.zklock.recipes.test.sim.Simulation.READ_WRITE_PATH;
import static dev.zklock.recipes.test.sim.Simulation.SECOND_PATH;
import static dev.zklock.recipes.test.sim.Simulation.SEMAPHORE_PATH;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.ReadWriteEntry;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * One simulated thread: acquires, holds and releases its lock as many times as its plan says, with the deadline, the
 * interrupt, and, while it holds a read/write lock, the downgrade or the upgrade the seed chooses. A downgrade or an
 * upgrade begins as the engine's {@link ReadWriteEntry} rule says, the rule the read/write lock asks. Not thread-safe.
 */
final class SimActor {
    /** How a simulated thread takes the write lock of the read/write path while it holds the read lock. */
    private interface WriteTry {
        void start(long deadline, Consumer<Runnable> held, Consumer<String> ended);
    }

    final String name;
    private final SimPlan.Thread thread;
    private final SimClient client;
    private final SimWorld world;
    private final SimChecker checker;
    private final int maxLeases;
    private final BiFunction<SimClient, SimPlan.Kind, SimCohort> cohorts;
    private int left;
    boolean done;
    String acquiring;

    SimActor(
            String name,
            SimPlan.Thread thread,
            SimClient client,
            SimWorld world,
            SimChecker checker,
            int maxLeases,
            BiFunction<SimClient, SimPlan.Kind, SimCohort> cohorts) {
        this.name = name;
        this.thread = thread;
        this.client = client;
        this.world = world;
        this.checker = checker;
        this.maxLeases = maxLeases;
        this.cohorts = cohorts;
        this.left = thread.acquires();
    }

    void next() {
        if (left == 0 || client.isClosed()) {
            done = true;
            return;
        }
        left--;
        long deadline = someDeadline(4);
        acquiring = thread.kind() + " until " + (deadline == SimAcquisition.FOREVER ? "forever" : deadline);
        checker.began();
        boolean interrupts = world.random.nextInt(10) == 0;
        switch (thread.kind()) {
            case EXCLUSIVE -> plain( // now and then on the multi-lock's second path, which a multi-lock then waits on
                    List.of(exclusive(world.random.nextInt(4) == 0 ? SECOND_PATH : EXCLUSIVE_PATH)),
                    SimChecker.Mode.EXCLUSIVE,
                    deadline,
                    interrupts);
            case READ -> plain(List.of(readPath()), SimChecker.Mode.READ, deadline, interrupts);
            case WRITE -> plain(List.of(writePath()), SimChecker.Mode.WRITE, deadline, interrupts);
            case MULTI -> plain(
                    List.of(exclusive(EXCLUSIVE_PATH), exclusive(SECOND_PATH)),
                    SimChecker.Mode.EXCLUSIVE,
                    deadline,
                    interrupts);
            case SEMAPHORE -> semaphore(deadline, interrupts);
            default -> local(deadline, interrupts);
        }
    }

    /** A deadline a short while ahead, or none at all once in {@code foreverOneIn} draws. */
    private long someDeadline(int foreverOneIn) {
        return world.random.nextInt(foreverOneIn) == 0 ? SimAcquisition.FOREVER : world.now() + world.delay(0, 3_000);
    }

    private void plain(List<LockPath> queues, SimChecker.Mode mode, long deadline, boolean interrupts) {
        Runnable abandon = acquire(queues, null, deadline, name, outcome(deadline, nodes -> {
            if (mode == SimChecker.Mode.WRITE && world.random.nextInt(3) == 0) {
                world.tally("downgrade beside a write node of its own");
                plainDowngrade(nodes.get(0), deadline);
            } else if (mode == SimChecker.Mode.READ && world.random.nextInt(4) == 0) {
                world.tally("upgrade asked of a read node's holder");
                plainUpgrade(nodes.get(0), deadline);
            } else {
                holdAndRelease(nodes, mode, deadline, "its own node");
            }
        }));
        interruptLater(interrupts, abandon);
    }

    /**
     * Starts an acquire of {@code queues} with the engine's own {@code CallbackRunner} ({@link SimCallbackAcquire}); a
     * node taken beside one of ours, which the engine takes with its blocking runner, with the mirror of a runner
     * ({@link SimAcquisition}). Returns how to interrupt it.
     */
    private Runnable acquire(
            List<LockPath> queues, LockNode beside, long deadline, String label, SimAcquisition.Outcome outcome) {
        if (beside == null) {
            SimCallbackAcquire acquire = SimCallbackAcquire.queues(world, client, queues, deadline, label, outcome);
            acquire.start();
            return acquire::abandon;
        }
        SimAcquisition acquisition = new SimAcquisition(world, client, queues, beside, deadline, label, outcome);
        acquisition.start();
        return acquisition::abandon;
    }

    private void semaphore(long deadline, boolean interrupts) {
        int count = 1 + world.random.nextInt(maxLeases);
        SimCallbackAcquire semaphore = SimCallbackAcquire.leases(
                world,
                client,
                client.semaphore(SEMAPHORE_PATH, () -> maxLeases),
                count,
                deadline,
                name,
                outcome(deadline, nodes -> holdAndRelease(nodes, SimChecker.Mode.LEASE, deadline, "its leases")));
        semaphore.start();
        interruptLater(interrupts, semaphore::abandon);
    }

    private void local(long deadline, boolean interrupts) {
        SimCohort cohort = cohorts.apply(client, thread.kind());
        SimChecker.Mode mode = thread.kind() == SimPlan.Kind.COHORT_READ
                ? SimChecker.Mode.READ
                : thread.kind() == SimPlan.Kind.COHORT_WRITE ? SimChecker.Mode.WRITE : SimChecker.Mode.EXCLUSIVE;
        cohort.acquire(name, deadline, new SimCohort.Outcome() {
            @Override
            public void held(Hold hold, String how) {
                checker.ended(name, deadline);
                SimChecker.Held held = checker.granted(name, client, hold, mode, how, cohort::knowsGone);
                Runnable release = () -> {
                    checker.released(held);
                    cohort.release(hold);
                };
                if (mode == SimChecker.Mode.WRITE && world.random.nextInt(3) == 0) {
                    world.tally("downgrade beside a write cohort's node");
                    downgrade(
                            hold, release, () -> cohort.beside(hold.node(), +1), () -> cohort.beside(hold.node(), -1));
                } else if (mode == SimChecker.Mode.READ && world.random.nextInt(4) == 0) {
                    world.tally("upgrade asked of a read cohort's holder");
                    upgrade(release, cohortWrite());
                } else {
                    world.after(world.delay(0, 500), name + " releases", () -> {
                        release.run();
                        pause();
                    });
                }
            }

            @Override
            public void ended(String why) {
                endedWithout(deadline, why);
            }
        });
        interruptLater(interrupts, () -> cohort.interrupt(name));
    }

    /** The write lock came back with a node of its own: holds it a while, then takes the read lock beside it. */
    private void plainDowngrade(LockNode write, long deadline) {
        checker.ended(name, deadline);
        SimChecker.Held writeHeld =
                checker.granted(name, client, new Hold(write, 0), SimChecker.Mode.WRITE, "its own node", null);
        downgrade(new Hold(write, 0), () -> letGo(List.of(write), writeHeld), () -> {}, () -> {});
    }

    /**
     * Holds {@code write} a while, then takes the read lock beside it (a downgrade, as {@link ReadWriteEntry} says: a
     * plain read node that ranks with the write node, on its own even when the write lock is a cohort's), lets the
     * write lock go, holds the read lock a while, lets it go. {@code besideBegins} and {@code besideEnds} tell a write
     * cohort of the read node beside its node, as the engine's {@code LockCore} tells it.
     */
    private void downgrade(Hold write, Runnable releaseWrite, Runnable besideBegins, Runnable besideEnds) {
        world.after(world.delay(0, 300), name + " downgrades", () -> {
            LockNode beside = ReadWriteEntry.ofRead(true) == ReadWriteEntry.BESIDE ? write.node() : null;
            long readDeadline = someDeadline(2);
            checker.began();
            besideBegins.run();
            acquire(List.of(readPath()), beside, readDeadline, name + " downgrading", new SimAcquisition.Outcome() {
                @Override
                public void granted(List<LockNode> nodes) {
                    Hold read = Hold.beside(nodes.get(0), write);
                    releaseWrite.run();
                    checker.ended(name, readDeadline);
                    SimChecker.Held held = checker.grantedBeside(name, client, read, write.node());
                    world.after(world.delay(0, 500), name + " releases", () -> {
                        letGo(List.of(read.node()), held);
                        besideEnds.run();
                        pause();
                    });
                }

                @Override
                public void ended(String why) {
                    besideEnds.run();
                    releaseWrite.run();
                    endedWithout(readDeadline, why);
                }
            });
        });
    }

    /** The read lock came back with a node of its own: holds it, asks for the write lock meanwhile, lets go. */
    private void plainUpgrade(LockNode read, long deadline) {
        checker.ended(name, deadline);
        SimChecker.Held held =
                checker.granted(name, client, new Hold(read, 0), SimChecker.Mode.READ, "its own node", null);
        upgrade(
                () -> letGo(List.of(read), held),
                (writeDeadline, granted, ended) -> acquire(
                        List.of(writePath()), null, writeDeadline, name + " upgrading", new SimAcquisition.Outcome() {
                            @Override
                            public void granted(List<LockNode> nodes) {
                                SimChecker.Held write = checker.granted(
                                        name,
                                        client,
                                        new Hold(nodes.get(0), 0),
                                        SimChecker.Mode.WRITE,
                                        "an upgrade",
                                        null);
                                granted.accept(() -> letGo(nodes, write));
                            }

                            @Override
                            public void ended(String why) {
                                ended.accept(why);
                            }
                        }));
    }

    /** The write lock of the client's write cohort on the read/write path, as a read cohort's holder asks for it. */
    private WriteTry cohortWrite() {
        SimCohort writes = cohorts.apply(client, SimPlan.Kind.COHORT_WRITE);
        return (writeDeadline, granted, ended) -> writes.acquire(name, writeDeadline, new SimCohort.Outcome() {
            @Override
            public void held(Hold hold, String how) {
                SimChecker.Held write =
                        checker.granted(name, client, hold, SimChecker.Mode.WRITE, how, writes::knowsGone);
                granted.accept(() -> {
                    checker.released(write);
                    writes.release(hold);
                });
            }

            @Override
            public void ended(String why) {
                ended.accept(why);
            }
        });
    }

    /**
     * While it holds the read lock, the thread asks for the write lock of the same path (an upgrade), as the engine's
     * {@link ReadWriteEntry} rule says: refused at once. Were the rule to let it queue, its write node would wait
     * behind its own read node; without a deadline, for ever, which the simulation reports. Then it lets go of what
     * it holds ({@code releaseRead}, and the write lock if it came).
     */
    private void upgrade(Runnable releaseRead, WriteTry writeTry) {
        world.after(world.delay(0, 300), name + " asks for the write lock", () -> {
            if (ReadWriteEntry.ofWrite(true) == ReadWriteEntry.REFUSE) {
                world.note(name + " is refused the upgrade at once");
                world.tally("upgrade refused");
                world.after(world.delay(0, 300), name + " releases", () -> {
                    releaseRead.run();
                    pause();
                });
                return;
            }
            long writeDeadline = someDeadline(2);
            String before = acquiring;
            acquiring = "an upgrade until " + (writeDeadline == SimAcquisition.FOREVER ? "forever" : writeDeadline);
            checker.began();
            writeTry.start(
                    writeDeadline,
                    releaseWrite -> {
                        checker.ended(name, writeDeadline);
                        acquiring = before;
                        world.after(world.delay(0, 300), name + " releases both", () -> {
                            releaseWrite.run();
                            releaseRead.run();
                            pause();
                        });
                    },
                    why -> {
                        checker.ended(name, writeDeadline);
                        acquiring = before;
                        world.note(name + " upgrade ended: " + why);
                        releaseRead.run();
                        pause();
                    });
        });
    }

    /** The acquire came back with its own nodes: holds them a while, then deletes them. */
    private void holdAndRelease(List<LockNode> nodes, SimChecker.Mode mode, long deadline, String how) {
        checker.ended(name, deadline);
        List<SimChecker.Held> held = nodes.stream()
                .map(node -> checker.granted(name, client, new Hold(node, 0), mode, how, null))
                .toList();
        world.after(world.delay(0, 500), name + " releases", () -> {
            held.forEach(checker::released);
            letGo(nodes, null);
            pause();
        });
    }

    /** Lets the nodes of a hold of its own go: released in the checker (unless null), untracked, deleted. */
    private void letGo(List<LockNode> nodes, SimChecker.Held held) {
        if (held != null) {
            checker.released(held);
        }
        for (LockNode node : nodes) {
            client.untrack(node);
        }
        world.releasing(nodes);
        SimDeletes.deleteLater(world, client, nodes);
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

    private LockPath exclusive(String lockPath) {
        return client.path(lockPath, "lock-", LockDriver.exclusive());
    }

    private LockPath readPath() {
        return client.path(READ_WRITE_PATH, "__READ__", LockDriver.read());
    }

    private LockPath writePath() {
        return client.path(READ_WRITE_PATH, "__WRIT__", LockDriver.write());
    }
}
