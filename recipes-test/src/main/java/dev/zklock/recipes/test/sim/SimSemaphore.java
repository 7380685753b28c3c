package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * One acquire of a semaphore's leases, as the engine's {@code LeaseQueue} makes it: take the internal mutex (the queue
 * machine), take the leases on the mutex's session (the engine's {@code LeaseAcquisition}, tracked and admitted), then
 * let the mutex go, without waiting, after whatever the lease step deleted. If the mutex's session ends on the way, or
 * the leases are lost before they are admitted, it starts again from the mutex within the same deadline. Not
 * thread-safe.
 */
final class SimSemaphore {
    private final SimWorld world;
    private final SimClient client;
    private final LockPath mutex;
    private final LockPath leases;
    private final IntSupplier maxLeases;
    private final int count;
    private final long deadline;
    private final String label;
    private final SimAcquisition.Outcome outcome;
    private Runnable abandonStep; // interrupts the mutex or the lease step under way
    private boolean over;

    SimSemaphore(
            SimWorld world,
            SimClient client,
            LockPath mutex,
            LockPath leases,
            IntSupplier maxLeases,
            int count,
            long deadline,
            String label,
            SimAcquisition.Outcome outcome) {
        this.world = world;
        this.client = client;
        this.mutex = mutex;
        this.leases = leases;
        this.maxLeases = maxLeases;
        this.count = count;
        this.deadline = deadline;
        this.label = label;
        this.outcome = outcome;
    }

    void start() {
        takeMutex();
    }

    /** Ends the acquire from outside (an interrupt): the step under way cleans up what it made. */
    void abandon() {
        if (!over && abandonStep != null) {
            abandonStep.run();
        }
    }

    private void takeMutex() {
        SimAcquisition.Outcome held = new SimAcquisition.Outcome() {
            @Override
            public void granted(List<LockNode> nodes) {
                takeLeases(nodes.get(0));
            }

            @Override
            public void ended(String why) {
                end(why);
            }
        };
        // The engine's own CallbackRunner, as the engine takes a semaphore's mutex; neither tracked nor admitted
        SimCallbackAcquire step =
                new SimCallbackAcquire(world, client, List.of(mutex), false, deadline, label + " mutex", held);
        abandonStep = step::abandon;
        step.start();
    }

    private void takeLeases(LockNode mutexNode) {
        SimAcquisition step = SimAcquisition.leases(
                world,
                client,
                leases,
                mutexNode.sessionId(),
                count,
                maxLeases,
                deadline,
                label + " leases",
                new SimAcquisition.Outcome() {
                    @Override
                    public void granted(List<LockNode> nodes) {
                        letMutexGo(mutexNode);
                        if (!over) {
                            over = true;
                            outcome.granted(nodes);
                        }
                    }

                    @Override
                    public void ended(String why) {
                        letMutexGo(mutexNode);
                        end(why);
                    }

                    @Override
                    public void restart() {
                        letMutexGo(mutexNode);
                        if (deadline != SimAcquisition.FOREVER && world.now() >= deadline) {
                            end("timed out");
                        } else {
                            world.note(label + " starts again from the mutex");
                            takeMutex();
                        }
                    }
                });
        abandonStep = step::abandon;
        step.start();
    }

    /** The mutex goes after the lease step's deletes, on the same session (the engine's {@code LockPath.endLater}). */
    private void letMutexGo(LockNode mutexNode) {
        world.releasing(List.of(mutexNode));
        SimDeletes.deleteLater(world, client, List.of(mutexNode));
    }

    private void end(String why) {
        if (!over) {
            over = true;
            outcome.ended(why);
        }
    }
}
