package dev.zklock.recipes.test.sim;

import static dev.zklock.recipes.test.sim.Simulation.EXCLUSIVE_PATH;
import static dev.zklock.recipes.test.sim.Simulation.READ_WRITE_PATH;
import static dev.zklock.recipes.test.sim.Simulation.SECOND_PATH;
import static dev.zklock.recipes.test.sim.Simulation.SEMAPHORE_PATH;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.ReadWriteEntry;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * One simulated thread: acquires, holds and releases its lock as many times as its plan says, with the deadline, the
 * interrupt, and, while it holds a read/write lock, the downgrade or the upgrade the seed chooses. A downgrade or an
 * upgrade begins as the engine's {@link ReadWriteEntry} rule says, the rule the read/write lock asks. Not thread-safe.
 */
final class SimActor {
    /** The tally of plain acquires on a simulated thread taken by the engine's blocking runner. */
    static final String BLOCKING_RUNNER = "acquire on the blocking runner";

    /** The tally of plain acquires on a simulated thread taken by the virtual-thread drive ({@code CallbackRunner.await}). */
    static final String VIRTUAL_DRIVE = "acquire on the virtual-thread drive";

    final String name;
    private final SimPlan.Thread thread;
    private final SimClient client;
    private final SimWorld world;
    private final SimChecker checker;
    private final int maxLeases;
    private final BiFunction<SimClient, SimPlan.Kind, LockCore> cohorts;
    private final boolean virtual; // its blocking acquires go as a virtual thread's (CallbackRunner.await)
    private SimThread simThread; // made on its first blocking call
    private boolean acquiringOnThread; // an acquire runs on its thread: an interrupt may fall on it
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
            BiFunction<SimClient, SimPlan.Kind, LockCore> cohorts) {
        this.name = name;
        this.thread = thread;
        this.client = client;
        this.world = world;
        this.checker = checker;
        this.maxLeases = maxLeases;
        this.cohorts = cohorts;
        this.left = thread.acquires();
        this.virtual = world.random.nextBoolean();
    }

    void next() {
        if (left == 0 || client.isClosed()) {
            done = true;
            return;
        }
        left--;
        long deadline = someDeadline(4);
        acquiring = thread.kind() + " until " + (deadline == SimWorld.FOREVER ? "forever" : deadline);
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
        return world.random.nextInt(foreverOneIn) == 0 ? SimWorld.FOREVER : world.now() + world.delay(0, 3_000);
    }

    private void plain(List<LockPath> queues, SimChecker.Mode mode, long deadline, boolean interrupts) {
        Consumer<List<LockNode>> granted = nodes -> {
            if (mode == SimChecker.Mode.WRITE && world.random.nextInt(3) == 0) {
                world.tally("downgrade beside a write node of its own");
                plainDowngrade(nodes.get(0), deadline);
            } else if (mode == SimChecker.Mode.READ && world.random.nextInt(4) == 0) {
                world.tally("upgrade asked of a read node's holder");
                plainUpgrade(nodes.get(0), deadline);
            } else {
                holdAndRelease(nodes, mode, deadline, "its own node");
            }
        };
        if (queues.size() == 1 && world.random.nextBoolean()) {
            acquireOnThread(queues.get(0), deadline, granted);
            interruptLater(interrupts, this::interruptOnThread);
            return;
        }
        SimCallbackAcquire acquire =
                SimCallbackAcquire.queues(world, client, queues, deadline, name, outcome(deadline, granted));
        acquire.start();
        interruptLater(interrupts, acquire::abandon);
    }

    /**
     * Takes a node of {@code path} on this actor's thread, as a user's thread does ({@code LockPath.acquire}: the
     * blocking runner, or the virtual-thread drive on a thread drawn virtual); {@code granted} runs on the thread at
     * the instant of the grant.
     */
    private void acquireOnThread(LockPath path, long deadline, Consumer<List<LockNode>> granted) {
        boolean[] held = new boolean[1];
        acquiringOnThread = true;
        world.tally(virtual ? VIRTUAL_DRIVE : BLOCKING_RUNNER);
        onThread(
                "acquire " + path.path(),
                () -> {
                    Optional<LockNode> taken = path.acquire(client.deadline(deadline));
                    acquiringOnThread = false;
                    if (taken.isPresent()) {
                        held[0] = true;
                        checkNotInterrupted(taken.get());
                        granted.accept(List.of(taken.get()));
                    }
                },
                failure -> {
                    acquiringOnThread = false;
                    if (!held[0]) {
                        endedWithout(deadline, failure == null ? "timed out" : why(failure));
                    }
                });
    }

    /** An acquire must never return a hold with the thread's interrupt flag set: an interrupt as the grant came wins. */
    private void checkNotInterrupted(LockNode granted) {
        if (Thread.interrupted()) {
            checker.violation(
                    "%s was granted %s with its interrupt flag set: an interrupt as the grant came must win",
                    name, granted.name());
        }
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
        LockCore cohort = cohorts.apply(client, thread.kind());
        SimChecker.Mode mode = thread.kind() == SimPlan.Kind.COHORT_READ
                ? SimChecker.Mode.READ
                : thread.kind() == SimPlan.Kind.COHORT_WRITE ? SimChecker.Mode.WRITE : SimChecker.Mode.EXCLUSIVE;
        takeOnThread(
                cohort,
                mode,
                deadline,
                "a cohort's grant",
                (hold, held) -> {
                    checker.ended(name, deadline);
                    Runnable release = () -> releaseOnThread(cohort, hold, held, this::pause);
                    if (mode == SimChecker.Mode.WRITE && world.random.nextInt(3) == 0) {
                        world.tally("downgrade beside a write cohort's node");
                        cohortDowngrade(hold, held);
                    } else if (mode == SimChecker.Mode.READ && world.random.nextInt(4) == 0) {
                        world.tally("upgrade asked of a read cohort's holder");
                        upgrade(next -> releaseOnThread(cohort, hold, held, next));
                    } else {
                        world.after(world.delay(0, 500), name + " releases", release);
                    }
                },
                why -> endedWithout(deadline, why));
        interruptLater(interrupts, this::interruptOnThread);
    }

    /**
     * Takes a hold of {@code core} on this actor's simulated thread, as a user's thread does ({@code LockCore.acquire}:
     * the cohort's runner, its leader's entry on the blocking runner or, on a thread drawn virtual, on the
     * virtual-thread drive), and checks it at the instant it is granted (nothing else runs until the thread parks
     * again). An acquire must never return a hold with the thread's interrupt flag set: an interrupt that came as it
     * was granted wins (the hold passed on, InterruptedException thrown).
     */
    private void takeOnThread(
            LockCore core,
            SimChecker.Mode mode,
            long deadline,
            String how,
            BiConsumer<Hold, SimChecker.Held> granted,
            Consumer<String> ended) {
        Hold[] hold = new Hold[1];
        SimChecker.Held[] held = new SimChecker.Held[1];
        acquiringOnThread = true;
        if (simThread != null) {
            simThread.takePassedLocally(); // a pass of an earlier acquire that gave up is not this one's
        }
        onThread(
                "acquire " + core.path().path(),
                () -> {
                    Optional<Hold> taken = core.acquire(client.deadline(deadline));
                    acquiringOnThread = false;
                    if (taken.isPresent()) {
                        hold[0] = taken.get();
                        checkNotInterrupted(hold[0].node());
                        if (hold[0].node().name().equals(simThread.takePassedLocally())) {
                            checker.localGrant(name, client, hold[0].node());
                        }
                        held[0] = checker.granted(
                                name, client, hold[0], mode, how, node -> client.stateOf(node) == LockState.LOST);
                    }
                },
                failure -> {
                    acquiringOnThread = false;
                    if (hold[0] != null) {
                        granted.accept(hold[0], held[0]);
                    } else {
                        ended.accept(failure == null ? "timed out" : why(failure));
                    }
                });
    }

    /** Ends a hold of {@code core} on this actor's thread ({@code LockCore.release}), then runs {@code then}. */
    private void releaseOnThread(LockCore core, Hold hold, SimChecker.Held held, Runnable then) {
        onThread(
                "release " + hold.node().name(),
                () -> {
                    checker.released(held);
                    core.release(hold, 0);
                },
                failure -> {
                    if (failure != null) {
                        checker.violation(
                                "%s's release of %s threw %s", name, hold.node().name(), failure);
                    }
                    then.run();
                });
    }

    /** Runs {@code job} on this actor's simulated thread; {@code done} hears, on the world's loop, what it threw. */
    private void onThread(String what, SimThread.SimJob job, Consumer<Throwable> done) {
        if (simThread == null) {
            simThread = world.thread(name, virtual, client::heard);
        }
        simThread.submit(what, job, done);
    }

    /** An interrupt of the acquire under way on this actor's thread, if one is. */
    private void interruptOnThread() {
        if (acquiringOnThread) {
            world.note(name + " is interrupted on its thread");
            simThread.interrupt();
        }
    }

    private static String why(Throwable failure) {
        if (failure instanceof InterruptedException) {
            return "interrupted";
        }
        if (failure instanceof IllegalStateException) {
            return "refused: " + failure.getMessage();
        }
        return "error: " + failure;
    }

    /** How a downgrade takes its read node beside the write node, on its thread, until the deadline. */
    @FunctionalInterface
    private interface Beside {
        Optional<Hold> take(Deadline deadline) throws InterruptedException;
    }

    /**
     * A write cohort's holder takes the read lock beside its hold (a downgrade, {@code LockCore.acquireAlongside} of
     * the read lock, which tells the write cohort of the read node beside its node), lets the write lock go, holds the
     * read lock a while and lets it go, all on its thread.
     */
    private void cohortDowngrade(Hold write, SimChecker.Held writeHeld) {
        LockCore reads = cohorts.apply(client, SimPlan.Kind.COHORT_READ);
        LockCore writes = cohorts.apply(client, SimPlan.Kind.COHORT_WRITE);
        downgrade(
                write.node(),
                deadline -> reads.acquireAlongside(write, deadline),
                () -> {
                    checker.released(writeHeld);
                    writes.release(write, 0);
                },
                (read, readHeld) -> releaseOnThread(reads, read, readHeld, this::pause));
    }

    /**
     * The write lock came back with a node of its own: holds it a while, then takes the read lock beside it on its
     * thread (a downgrade, as {@link ReadWriteEntry} says: {@code LockPath.acquireAlongside}, the engine's blocking
     * runner, a read node that ranks with the write node), lets the write lock go, holds the read lock a while, lets
     * it go.
     */
    private void plainDowngrade(LockNode write, long deadline) {
        checker.ended(name, deadline);
        SimChecker.Held writeHeld =
                checker.granted(name, client, Hold.of(write, 0), SimChecker.Mode.WRITE, "its own node", null);
        downgrade(
                write,
                readDeadline -> readPath()
                        .acquireAlongside(write, readDeadline)
                        .map(node -> Hold.beside(node, Hold.of(write, 0))),
                () -> letGo(List.of(write), writeHeld),
                (read, readHeld) -> {
                    letGo(List.of(read.node()), readHeld);
                    pause();
                });
    }

    /**
     * After a while, takes the read lock beside {@code write} with {@code beside} on its thread, then lets the write
     * lock go ({@code letWriteGo}, on the thread, whether or not the read lock came), holds the read lock a while and
     * lets it go ({@code letReadGo}).
     */
    private void downgrade(
            LockNode write, Beside beside, Runnable letWriteGo, BiConsumer<Hold, SimChecker.Held> letReadGo) {
        world.after(world.delay(0, 300), name + " downgrades", () -> {
            long readDeadline = someDeadline(2);
            checker.began();
            Hold[] read = new Hold[1];
            SimChecker.Held[] readHeld = new SimChecker.Held[1];
            onThread(
                    "downgrade beside " + write.name(),
                    () -> {
                        try {
                            Optional<Hold> taken = beside.take(client.deadline(readDeadline));
                            if (taken.isPresent()) {
                                read[0] = taken.get();
                                readHeld[0] = checker.grantedBeside(name, client, read[0], write);
                            }
                        } finally { // the write lock goes once the read lock is held, or the try ended
                            letWriteGo.run();
                        }
                    },
                    failure -> {
                        checker.ended(name, readDeadline);
                        if (read[0] == null) {
                            endedWithout(readDeadline, failure == null ? "timed out" : why(failure));
                            return;
                        }
                        world.after(
                                world.delay(0, 500), name + " releases", () -> letReadGo.accept(read[0], readHeld[0]));
                    });
        });
    }

    /** The read lock came back with a node of its own: holds it, asks for the write lock meanwhile, lets go. */
    private void plainUpgrade(LockNode read, long deadline) {
        checker.ended(name, deadline);
        SimChecker.Held held =
                checker.granted(name, client, Hold.of(read, 0), SimChecker.Mode.READ, "its own node", null);
        upgrade(next -> {
            letGo(List.of(read), held);
            next.run();
        });
    }

    /**
     * While it holds the read lock, the thread asks for the write lock of the same path (an upgrade), as the engine's
     * {@link ReadWriteEntry} rule says: refused at once. Were the rule to let it queue, its write node would wait
     * behind its own read node, without a deadline for ever: a violation. Then it lets go of the read lock ({@code
     * releaseRead}, which runs what it is given once the read lock is let go).
     */
    private void upgrade(Consumer<Runnable> releaseRead) {
        world.after(world.delay(0, 300), name + " asks for the write lock", () -> {
            if (ReadWriteEntry.ofWrite(true) == ReadWriteEntry.REFUSE) {
                world.note(name + " is refused the upgrade at once");
                world.tally("upgrade refused");
            } else {
                checker.violation(
                        "%s may queue for the write lock behind its own read node: it would wait for ever", name);
            }
            world.after(world.delay(0, 300), name + " releases", () -> releaseRead.accept(this::pause));
        });
    }

    /** The acquire came back with its own nodes: holds them a while, then deletes them. */
    private void holdAndRelease(List<LockNode> nodes, SimChecker.Mode mode, long deadline, String how) {
        checker.ended(name, deadline);
        List<SimChecker.Held> held = nodes.stream()
                .map(node -> checker.granted(name, client, Hold.of(node, 0), mode, how, null))
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
    private SimCallbackAcquire.Outcome outcome(long deadline, Consumer<List<LockNode>> granted) {
        return new SimCallbackAcquire.Outcome() {
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
