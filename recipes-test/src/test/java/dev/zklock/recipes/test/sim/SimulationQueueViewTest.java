package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;

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
}
