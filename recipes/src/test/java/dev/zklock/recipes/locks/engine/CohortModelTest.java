package dev.zklock.recipes.locks.engine;

import kotlin.Unit;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Model checks an exclusive cohort, the runner ({@link Cohort}) and its local queue ({@link LocalQueue}) together, with
 * Lincheck: three threads each run a few of the operations below, and Lincheck tries their interleavings, switching
 * threads at every read and write of shared state, the cohort's JVM lock, its inbox and the parking of waiters among
 * them. The world around the cohort is a {@link CohortWorld}: no ZooKeeper, a scripted admission.
 *
 * <p>Every operation returns nothing, so the sequential specification is trivial; what is checked is:
 *
 * <ul>
 *   <li>safety, by the world on every entry to and exit from a critical section: no two live holds inside at once,
 *       fencing tokens that grow, no grant and no hold on a node the cohort has already ended, no node ended twice;
 *   <li>liveness: no interleaving leaves a thread parked for ever (Lincheck reports a hang): a waiter is always woken
 *       by the release, loss, revocation or failed admission that makes the node available;
 *   <li>cleanup, once every thread is done ({@link #allDone()}): no event is left in the cohort's inbox (whoever holds
 *       the cohort's JVM lock drains what was posted meanwhile), the cohort is idle, and every node it took was ended.
 * </ul>
 *
 * <p>The machine ({@link LocalQueue}) is checked step by step like the runner, not as one atomic step: without the
 * runner's lock around it (a break tried by hand), Lincheck finds two threads in it at once within seconds. The
 * client's context, Curator and logging are left out of the model ({@link CohortWorld#AROUND_THE_COHORT}).
 *
 * <p>One scenario is given by hand, the one that found a bug: a notifier posts while a monitoring read
 * ({@link Cohort#isActive()}, a registry's sweep) holds the cohort's lock; the notifier's {@code tryLock} fails and it
 * leaves the event to the lock's holder, which must look at the inbox again after it lets go.
 *
 * <p>Deadlines are forever here: Lincheck's model checker gives {@link System#nanoTime()} a fixed value.
 */
public final class CohortModelTest {
    private final CohortWorld world = new CohortWorld(false, CohortWorld.plainSettings());

    /** Acquires with no deadline, enters and leaves the critical section, releases. */
    @Operation
    public void lockUnlock() throws InterruptedException {
        world.holdOnce();
    }

    /**
     * As {@link #lockUnlock()}, but the thread's first admission (or, if it leads, its entry) says {@code fate}: the
     * grant is given back as if its deadline passed while the connection was down, found LOST, or the leader gets no
     * node.
     */
    @Operation
    public void lockUnlockWhen(@Param(gen = IntGen.class, conf = "1:3") int fate) throws InterruptedException {
        world.fate(CohortWorld.Fate.values()[fate]);
        world.holdOnce();
    }

    /** The client's tracker makes the cohort's node LOST (its session ended), as Curator's connection thread would. */
    @Operation
    public void loseNode() {
        world.loseCurrentNode();
    }

    /** Someone asks the holders of the cohort's node to let go, as a revocation request on ZooKeeper's event thread. */
    @Operation
    public void revoke() {
        world.revokeCurrentNode();
    }

    /** A revocation request for a node the cohort no longer holds, as a late watch event on ZooKeeper's thread. */
    @Operation
    public void lateNews() {
        world.lateNews();
    }

    /** A monitoring read, as a registry's sweep makes on the client's timer thread. */
    @Operation
    public void monitor() {
        world.cohort.isActive();
    }

    @Validate
    public void allDone() {
        world.checkAllDone();
    }

    @Test
    void modelCheck() {
        new ModelCheckingOptions()
                .actorsBefore(0)
                .actorsAfter(0)
                .threads(3)
                .actorsPerThread(2)
                .iterations(5)
                .invocationsPerIteration(60)
                .addGuarantee(CohortWorld.AROUND_THE_COHORT)
                .addGuarantee(CohortWorld.THE_WORLD_IS_ATOMIC)
                .addCustomScenario(scenario -> {
                    scenario.parallel(parallel -> {
                        parallel.thread(thread -> CohortWorld.thread(thread, CohortModelTest.class, "lateNews"));
                        parallel.thread(thread -> CohortWorld.thread(thread, CohortModelTest.class, "monitor"));
                        return Unit.INSTANCE;
                    });
                    return Unit.INSTANCE;
                })
                .check(CohortModelTest.class);
    }
}
