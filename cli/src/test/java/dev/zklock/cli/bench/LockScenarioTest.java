package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** What one round of a lock scenario counts, against an embedded server with clients of the bench's pool. */
final class LockScenarioTest {

    @Test
    void round_ofClientsOnOnePath_countsTheirSessionsRequestsAlone_notThoseOfAnotherClientOfThePool() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            LockScenario scenario = LockScenario.clients(Recipe.reentrant(), 2);
            Measurement measured = besideABusyClient(ensemble, scenario);

            // 4 requests for an acquisition that finds the lock free, 5 for one that waits
            assertThat(measured.requestsPerAcquisition()).isBetween(4.0, 5.0);
        }
    }

    @Test
    void round_uncontended_countsItsClientsRequestsAlone_notThoseOfAnotherClientOfThePool() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            LockScenario scenario = LockScenario.uncontended(Recipe.reentrant(), false);
            Measurement measured = besideABusyClient(ensemble, scenario);

            // a create, a listing, the held node's watch, a delete
            assertThat(measured.requestsPerAcquisition()).isEqualTo(4.0);
        }
    }

    /**
     * Threads sharing a lock object with work inside each hold: the work is done while holding, so the holds follow one
     * another and the round makes at most one acquisition per work's length (were the work done outside the lock, two
     * threads on two processors would make up to twice that). The scenario names the work in its rows and its key.
     */
    @Test
    void round_withWorkInside_doesTheWorkWhileHolding_andNamesIt() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            LockScenario scenario = LockScenario.sharedLockBesideJdk(
                    Recipe.reentrantLocalHandOff(), 2, LoopWork.inside(Duration.ofMillis(1)));

            Map<Side, Measurement> measured = roundBesideJdk(ensemble, scenario, 1000.0);

            assertThat(scenario.name()).isEqualTo("2 threads, 1 lock object, 1000 us inside, local hand-off");
            assertThat(scenario.key()).isEqualTo("reentrant-local-hand-off-shared-lock-work-2");
            assertThat(scenario.floorRows(measured))
                    .extracting(FloorRow::scenario)
                    .containsOnly("2 threads, 1 lock object, 1000 us inside");
        }
    }

    /**
     * Threads sharing a lock object with work after each release: each thread makes at most one acquisition per work's
     * length, two threads up to twice the rate of the same work inside, and no two holders are ever inside at once. The
     * scenario names the work in its rows and its key.
     */
    @Test
    void round_withWorkOutside_doesTheWorkBetweenHolds_andNamesIt() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            LockScenario scenario = LockScenario.sharedLockBesideJdk(
                    Recipe.reentrantLocalHandOff(), 2, LoopWork.outside(Duration.ofMillis(1)));

            Map<Side, Measurement> measured = roundBesideJdk(ensemble, scenario, 2 * 1000.0);

            assertThat(scenario.name()).isEqualTo("2 threads, 1 lock object, 1000 us outside, local hand-off");
            assertThat(scenario.key()).isEqualTo("reentrant-local-hand-off-shared-lock-out-2");
            assertThat(scenario.floorRows(measured))
                    .extracting(FloorRow::scenario)
                    .containsOnly("2 threads, 1 lock object, 1000 us outside");
        }
    }

    /**
     * Runs one half-second round of {@code scenario}'s zklock and JDK sides; checks that each made acquisitions, at most
     * {@code maxPerSecond}, with no overlap; returns what the round measured.
     */
    private static Map<Side, Measurement> roundBesideJdk(
            BenchEnsemble ensemble, LockScenario scenario, double maxPerSecond) throws Exception {
        scenario.prepare(ensemble);
        Map<Side, Measurement> measured =
                scenario.round(ensemble, List.of(Side.ZKLOCK, Side.JDK), Duration.ofMillis(500));
        for (Side side : List.of(Side.ZKLOCK, Side.JDK)) {
            Measurement round = measured.get(side);
            assertThat(round.acquisitions()).isPositive();
            assertThat(round.perSecond()).isLessThanOrEqualTo(maxPerSecond);
            assertThat(round.overlaps()).isZero();
        }
        return measured;
    }

    @Test
    void loopWork_namesInsideAndOutside_andRefusesNegativeWork() {
        assertThat(LoopWork.NONE.label()).isEmpty();
        assertThat(LoopWork.NONE.keyPart()).isEmpty();
        LoopWork both = new LoopWork(Duration.ofNanos(1_000), Duration.ofNanos(3_000));
        assertThat(both.label()).isEqualTo("1 us inside, 3 us outside");
        assertThat(both.keyPart()).isEqualTo("-work-out");
        assertThatThrownBy(() -> LoopWork.outside(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT-0.000000001S");
    }

    /**
     * Runs one round of zklock's side of {@code scenario} for half a second while a client of the pool that is not the
     * scenario's reads in a loop, thousands of requests; returns what the round measured.
     */
    private static Measurement besideABusyClient(BenchEnsemble ensemble, LockScenario scenario) throws Exception {
        scenario.prepare(ensemble);
        CuratorFramework other = ensemble.client(2);
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong beside = new AtomicLong();
        CompletableFuture<Void> busy = CompletableFuture.runAsync(() -> {
            while (!done.get()) {
                try {
                    other.checkExists().forPath("/");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                beside.incrementAndGet();
            }
        });
        await().until(() -> beside.get() > 100);
        Map<Side, Measurement> measured = scenario.round(ensemble, List.of(Side.ZKLOCK), Duration.ofMillis(500));
        done.set(true);
        busy.get();
        assertThat(beside.get()).isGreaterThan(measured.get(Side.ZKLOCK).acquisitions());
        return measured.get(Side.ZKLOCK);
    }
}
