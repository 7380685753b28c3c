package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The deterministic simulation with the clients' queue views on (one persistent recursive watch per session and root
 * answers the asynchronous runners' listings and data watches; the two exclusive paths share a root, and views idle
 * for a session timeout are dropped, their roots' watches removed): every lock kind, every fault, the same invariants
 * as {@link SimulationTest}. {@code -Dzklock.sim.viewSeeds} seeds, 300 by default (the build's time); a full run takes
 * 10,000 or more.
 */
@Timeout(600)
final class SimulationQueueViewTest {
    private static final int SEEDS = Integer.getInteger("zklock.sim.viewSeeds", 300);
    private static final int COMPARED = Math.min(100, SEEDS);

    @Test
    void run_manySeedsWithQueueViews_breaksNoInvariantAndListsLess() {
        SimSettings viewed = SimSettings.defaults().withQueueViews(true);
        long listingsWithViews = 0;
        long listingsWithout = 0;
        long watchesRemoved = 0;
        for (long seed = 1; seed <= SEEDS; seed++) {
            SimReport report = Simulation.run(seed, viewed);
            if (!report.isClean()) {
                SimReport smallest = Simulation.shrink(report, viewed);
                assertThat(smallest.violations()).as(smallest.describe()).isEmpty();
            }
            watchesRemoved += report.tallies().getOrDefault(SimSession.WATCH_REMOVED, 0L);
            if (seed <= COMPARED) {
                listingsWithViews += report.tallies().getOrDefault(SimSession.LISTING_SENT, 0L);
                listingsWithout += Simulation.run(seed, SimSettings.defaults())
                        .tallies()
                        .getOrDefault(SimSession.LISTING_SENT, 0L);
            }
        }
        System.out.printf(
                "simulation with queue views: %d seeds clean; single-path listings sent over seeds 1-%d: %d with views,"
                        + " %d without; root watches removed by idle drops: %d%n",
                SEEDS, COMPARED, listingsWithViews, listingsWithout, watchesRemoved);
        assertThat(listingsWithViews).as("listings sent with views").isLessThan(listingsWithout / 2);
        assertThat(watchesRemoved).as("root watches removed by idle drops").isPositive();
    }

    /**
     * The plan of seed 24,175, which the million-seed run with views stopped at: client 0 is cut off while a sync it
     * sent waits in its queue; a multi-lock's node, the one its waiter's local watch is on, goes meanwhile; at the
     * reconnect the root's resync is sent, then the sync fails, an outage that outdates the resync's reply. Before, no
     * resync came again and the waiter was never told (it never came back, its node left behind); now the root resyncs
     * again (ViewSession, note 4).
     */
    @Test
    void run_aResyncOutdatedByARequestFailedAfterTheReconnect_isSentAgain() {
        SimPlan plan = new SimPlan(
                24175L,
                2,
                List.of(
                        new SimPlan.Thread(1, SimPlan.Kind.COHORT_WRITE, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.EXCLUSIVE, 1),
                        new SimPlan.Thread(0, SimPlan.Kind.EXCLUSIVE, 2),
                        new SimPlan.Thread(1, SimPlan.Kind.MULTI, 1),
                        new SimPlan.Thread(0, SimPlan.Kind.COHORT, 2),
                        new SimPlan.Thread(1, SimPlan.Kind.WRITE, 2)),
                List.of(new SimPlan.Fault(1878L, SimPlan.FaultKind.SUSPEND, 1415429148)),
                100);

        assertThat(runCleanWithViews(plan).trace())
                .contains("client-0 a request sent as the connection dropped: connection loss");
    }

    /**
     * The shrunk plan of seed 19,376, where the million-seed run with views threw: a semaphore's lease create and its
     * watched listing were applied as client 2's connection dropped, both replies lost; after the reconnect the
     * listing's watch fired while the lease step recovered its create, and the step, which expected a wake only while
     * waiting, threw on the event thread (LeaseAcquisition now lets the recovery's listing see the change).
     */
    @Test
    void run_aLeaseWatchFiringWhileItsStepRecoversALostCreate_isNoFailure() {
        SimPlan plan = new SimPlan(
                19376L,
                3,
                List.of(
                        new SimPlan.Thread(2, SimPlan.Kind.SEMAPHORE, 2),
                        new SimPlan.Thread(2, SimPlan.Kind.COHORT_READ, 1),
                        new SimPlan.Thread(2, SimPlan.Kind.SEMAPHORE, 2)),
                List.of(
                        new SimPlan.Fault(762L, SimPlan.FaultKind.KILL, 263188755),
                        new SimPlan.Fault(3754L, SimPlan.FaultKind.SUSPEND, 269666597)),
                100);

        runCleanWithViews(plan);
    }

    /**
     * The plan of seed 628,996, where the million-seed run with views stopped: a semaphore's internal mutex came to its
     * acquire long after the deadline (its client cut off), its lease step began then, and the step's listing, sent as
     * the connection dropped again, waited in the client's queue: the acquire came back 24 ms after its deadline, past
     * the one request timeout (20 ms) it may take. The step's wait for replies is now counted from the deadline.
     */
    @Test
    void run_aLeaseStepBegunAfterTheDeadline_comesBackWithinOneRequestTimeoutOfIt() {
        SimPlan plan = new SimPlan(
                628996L,
                2,
                List.of(
                        new SimPlan.Thread(0, SimPlan.Kind.EXCLUSIVE, 3),
                        new SimPlan.Thread(0, SimPlan.Kind.SEMAPHORE, 2),
                        new SimPlan.Thread(0, SimPlan.Kind.COHORT_CACHED, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.SEMAPHORE, 1)),
                List.of(
                        new SimPlan.Fault(933L, SimPlan.FaultKind.SUSPEND, 560220357),
                        new SimPlan.Fault(16186L, SimPlan.FaultKind.SUSPEND, 42041745)),
                100);

        runCleanWithViews(plan);
    }

    /**
     * The shrunk plan of seed 667,261 (the million-seed run with views, 667,264 seeds in): a multi-lock's grant is
     * decided on one queue, vouched; while admission waits for its other node's voucher, a revocation request spends the
     * first node's own watch and a stranger deletes that node, and admission said ADMIT 1 µs before the new read said
     * NONODE. The client of the multi-lock keeps no view (its code is the default mode's); the views of the other
     * client only shift the schedule. Admission now waits for the new read of a node whose voucher lapsed.
     */
    @Test
    void run_aVoucherSpentWhileAMultiLockIsAdmitted_isWaitedForAgain() {
        SimPlan plan = new SimPlan(
                667261L,
                2,
                List.of(
                        new SimPlan.Thread(1, SimPlan.Kind.COHORT_CACHED, 1),
                        new SimPlan.Thread(0, SimPlan.Kind.MULTI, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.COHORT_READ, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.EXCLUSIVE, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.COHORT_WRITE, 1),
                        new SimPlan.Thread(1, SimPlan.Kind.READ, 1)),
                List.of(
                        new SimPlan.Fault(1215L, SimPlan.FaultKind.REVOKE, 1680441780),
                        new SimPlan.Fault(1310L, SimPlan.FaultKind.STRANGER_DELETE, 1073923836)),
                100);

        runCleanWithViews(plan);
    }

    /** Runs {@code plan} with queue views and asserts it broke no invariant; returns its report. */
    private static SimReport runCleanWithViews(SimPlan plan) {
        SimReport report = Simulation.run(plan, SimSettings.defaults().withQueueViews(true));
        assertThat(report.violations()).as(report.describe()).isEmpty();
        return report;
    }
}
