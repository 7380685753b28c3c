package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Which scenarios a run measures for the recipes on the command line, in which order, and where the floor runs. */
final class BenchPlanTest {
    private static final List<Integer> CLIENTS = List.of(2);
    private static final List<Integer> THREADS = List.of(4);

    @Test
    void of_readWrite_runsItsLocksAloneThenTheMixesThenReaderThreadsWithLocalHandOff() {
        List<Scenario> plan = BenchPlan.of(List.of("readwrite"), CLIENTS, THREADS);

        assertThat(plan)
                .extracting(Scenario::key)
                .containsExactly(
                        "readwrite-read-uncontended-1",
                        "readwrite-write-uncontended-1",
                        "readwrite-mix-8-1",
                        "readwrite-mix-8-2",
                        "readwrite-read-local-hand-off-mix-8-1");
        assertThat(plan.get(4).name()).isEqualTo("8 reader threads + 1 writer client, local hand-off");
        assertThat(plan.get(4).contenders()).isEqualTo(9);
    }

    @Test
    void of_plainLocks_runUncontendedThenClientsThenHandOffThenSharedLocksThenLocalHandOff() {
        List<Scenario> plan = BenchPlan.of(List.of("exclusive", "reentrant"), CLIENTS, THREADS);

        assertThat(plan)
                .extracting(Scenario::key)
                .containsExactly(
                        "reentrant-uncontended-1",
                        "reentrant-clients-2",
                        "reentrant-hand-off-2",
                        "reentrant-shared-lock-4",
                        "reentrant-local-hand-off-shared-lock-2",
                        "reentrant-local-hand-off-shared-lock-4",
                        "reentrant-local-hand-off-client-cohorts-2x16",
                        "reentrant-keep-idle-cached-1",
                        "reentrant-keep-idle-second-client",
                        "exclusive-uncontended-1",
                        "exclusive-clients-2",
                        "exclusive-semaphore-uncontended-1",
                        "exclusive-semaphore-clients-2");
    }

    @Test
    void of_semaphore_runsUncontendedThenEightClientsOnThreeLeasesWithTheIssuesTargets() {
        List<Scenario> plan = BenchPlan.of(List.of("semaphore"), CLIENTS, THREADS);

        assertThat(plan)
                .extracting(Scenario::key)
                .containsExactly("semaphore-3-uncontended-1", "semaphore-3-clients-8");
        assertThat(plan).extracting(Scenario::group).containsOnly("ZkSemaphore vs InterProcessSemaphoreV2");
        assertThat(plan).extracting(Scenario::name).containsExactly("uncontended, 3 leases", "8 clients, 3 leases");
        assertThat(plan.get(0).sides()).contains(Side.RAW); // the first uncontended row without reentrant
    }

    @Test
    void of_reentrant_namesTheLocalHandOffScenariosAtFewThreadsToo_andRunsAJdkFairLockBesideTheSharedLockObjects() {
        List<Scenario> plan = BenchPlan.of(List.of("reentrant"), CLIENTS, List.of(8, 32));

        List<Scenario> few = plan.subList(plan.size() - 11, plan.size() - 9);
        assertThat(few)
                .extracting(Scenario::name)
                .containsExactly(
                        "2 threads, 1 lock object, local hand-off", "4 threads, 1 lock object, local hand-off");
        assertThat(few).allSatisfy(scenario -> assertThat(scenario.sides())
                .containsExactly(Side.ZKLOCK, Side.CURATOR, Side.JDK));
        List<Scenario> localHandOff = plan.subList(plan.size() - 9, plan.size());
        assertThat(localHandOff)
                .extracting(Scenario::name)
                .containsExactly(
                        "8 threads, 1 lock object, local hand-off",
                        "32 threads, 1 lock object, local hand-off",
                        "8 threads, 1 lock object, 1 us inside, local hand-off",
                        "8 threads, 1 lock object, 3 us outside, local hand-off",
                        "32 threads, 1 lock object, 1 us inside, local hand-off",
                        "32 threads, 1 lock object, 3 us outside, local hand-off",
                        "2 clients x 16 threads, local hand-off",
                        "keepIdle, 1 thread",
                        "second client acquires an idle cached lock");
        assertThat(localHandOff).extracting(Scenario::group).containsOnly("ZkReentrantLock vs InterProcessMutex");
        assertThat(localHandOff.subList(0, 6)).allSatisfy(scenario -> assertThat(scenario.sides())
                .containsExactly(Side.ZKLOCK, Side.CURATOR, Side.JDK));
        assertThat(localHandOff.get(2).key()).isEqualTo("reentrant-local-hand-off-shared-lock-work-8");
        assertThat(localHandOff.get(3).key()).isEqualTo("reentrant-local-hand-off-shared-lock-out-8");
        assertThat(localHandOff.subList(6, 8))
                .allSatisfy(scenario -> assertThat(scenario.sides()).containsExactly(Side.ZKLOCK, Side.CURATOR));
        assertThat(localHandOff.get(8).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR, Side.RAW);
        assertThat(localHandOff.get(6).contenders()).isEqualTo(32);
    }

    @Test
    void of_withoutReentrant_runsTheRawFloorBesideTheFirstUncontendedScenarioOnly() {
        List<Scenario> plan = BenchPlan.of(List.of("exclusive", "readwrite"), CLIENTS, THREADS);

        assertThat(plan.get(0).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR, Side.RAW, Side.RAW_LISTED);
        assertThat(plan.subList(1, plan.size()))
                .allSatisfy(scenario -> assertThat(scenario.sides()).containsExactly(Side.ZKLOCK, Side.CURATOR));
    }

    @Test
    void of_withReentrant_runsTheRawFloorBesideItsUncontendedScenarioAndTheIdleCachedLockOnly() {
        List<Scenario> plan = BenchPlan.of(BenchPlan.RECIPES, CLIENTS, THREADS);

        assertThat(plan.stream().filter(scenario -> scenario.sides().contains(Side.RAW)))
                .extracting(Scenario::key)
                .containsExactly("reentrant-uncontended-1", "reentrant-keep-idle-second-client");
    }

    @Test
    void of_multi_runsEachPathCountUncontendedThenCrossedOrders() {
        List<Scenario> plan = BenchPlan.of(List.of("multi", "readwrite"), CLIENTS, THREADS);

        assertThat(plan.subList(5, plan.size()))
                .extracting(Scenario::key)
                .containsExactly(
                        "multi-1-uncontended-1", "multi-4-uncontended-1", "multi-8-uncontended-1", "multi-crossed-2");
        assertThat(plan.subList(5, plan.size()))
                .extracting(Scenario::name)
                .containsExactly(
                        "uncontended, 1 path",
                        "uncontended, 4 paths",
                        "uncontended, 8 paths",
                        "2 clients, 2 paths in opposite orders, timeout 250 ms");
    }

    @Test
    void of_queueView_runsAgainstCuratorThenAgainstTheDefaultModeBesideBothRawQueuesWithTargetsOnItsFloor() {
        List<Scenario> plan = BenchPlan.of(List.of("queue-view"), List.of(8, 32), THREADS);

        assertThat(plan)
                .extracting(Scenario::key)
                .containsExactly(
                        "reentrant-queue-view-uncontended-1",
                        "reentrant-queue-view-clients-8",
                        "reentrant-queue-view-clients-32",
                        "reentrant-view-vs-default-uncontended-1",
                        "reentrant-view-vs-default-clients-8",
                        "reentrant-view-vs-default-clients-32");
        assertThat(plan.get(5).group())
                .isEqualTo("ZkReentrantLock with a queue view vs ZkReentrantLock in its default mode");
        assertThat(plan.get(5).name()).isEqualTo("32 clients");
        assertThat(plan.get(3).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR);
        assertThat(plan.get(4).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR, Side.RAW_VIEW, Side.RAW_QUEUE);
        assertThat(plan.get(5).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR, Side.RAW_VIEW, Side.RAW_QUEUE);
        // its targets, set on the raw view queue:
        // BenchReportTest.markdown_queueViewAgainstTheDefaultMode_judgesItsTargetsOnTheRawViewQueueAndShowsBothRawQueues
    }

    @Test
    void of_held_runsTenThousandHeldLocksAgainstCuratorWithTheWatchedFloorAndAtMostCuratorsHeapPerLockObject() {
        List<Scenario> plan = BenchPlan.of(List.of("held"), CLIENTS, THREADS);

        assertThat(plan).extracting(Scenario::key).containsExactly("reentrant-held-10000");
        assertThat(plan.get(0).group()).isEqualTo("ZkReentrantLock vs InterProcessMutex");
        assertThat(plan.get(0).name()).isEqualTo("10,000 locks held by one client, one per path");
        assertThat(plan.get(0).sides()).containsExactly(Side.ZKLOCK, Side.CURATOR);
        assertThat(plan.get(0).rows(Map.of()))
                .extracting(BenchRow::metric, row -> row.target().toString(), BenchRow::isMet)
                .containsExactly(
                        tuple(HeldLocksScenario.HEAP_PER_HELD_LOCK, "<= 1.1x floor", false),
                        tuple(HeldLocksScenario.HEAP_PER_LOCK_OBJECT, "<= 1x", false));
        assertThat(plan.get(0).floorRows(Map.of()))
                .extracting(FloorRow::floor, FloorRow::metric)
                .containsExactly(
                        tuple(HeldLocksScenario.WATCHED_FLOOR, HeldLocksScenario.HEAP_PER_HELD_LOCK),
                        tuple(HeldLocksScenario.WATCHED_FLOOR, HeldLocksScenario.HEAP_PER_LOCK_OBJECT));
    }

    @Test
    void pinnedScenarios_beforeARun_nameTheirCountsAndMissTheirTargetOfNone() {
        List<Scenario> pinned = List.of(
                PinnedScenario.plain(BenchPlan.PINNED_PLAIN_VIRTUAL_THREADS, BenchPlan.CURATOR_VIRTUAL_THREADS)
                        .target(PinnedScenario.PINNED_IN_LIBRARY, Target.atMost(0)),
                PinnedScenario.localHandOff(
                                BenchPlan.PINNED_LOCAL_HAND_OFF_VIRTUAL_THREADS, BenchPlan.CURATOR_VIRTUAL_THREADS)
                        .target(PinnedScenario.PINNED_IN_LIBRARY, Target.atMost(0)));

        assertThat(pinned)
                .extracting(Scenario::key, Scenario::name)
                .containsExactly(
                        tuple(
                                "virtual-threads-pinned-10000",
                                "10,000 virtual threads, 1 lock object, first use in a fresh JVM (Curator: 200)"),
                        tuple(
                                "virtual-threads-pinned-local-hand-off-100000",
                                "100,000 virtual threads, 1 lock object, local hand-off, first use in a fresh JVM"
                                        + " (Curator: 200)"));
        // n/a before any child ran: an unmeasured count of pinned threads never reads as none.
        assertThat(pinned.get(0).rows(Map.of()))
                .extracting(BenchRow::metric, row -> Double.isNaN(row.zklock()), BenchRow::isMet)
                .containsExactly(
                        tuple(PinnedScenario.PINNED_IN_LIBRARY, true, false),
                        tuple(PinnedScenario.PINNED, true, false));
    }

    @Test
    void pinnedScenario_withNoThreads_throwsIllegalArgumentNamingTheCount() {
        assertThatThrownBy(() -> PinnedScenario.plain(0, 200))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 0");
    }

    @Test
    void of_unknownRecipe_throwsIllegalArgumentNamingIt() {
        assertThatThrownBy(() -> BenchPlan.of(List.of("readwrite", "barrier"), CLIENTS, THREADS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'barrier'");
    }

    @Test
    void of_leader_runsTheFourPairsWithTheIssuesBoundsOnZklocksFigures() {
        List<Scenario> plan = BenchPlan.of(List.of("leader"), CLIENTS, THREADS);
        Measurement none = new Measurement(
                0,
                0,
                0,
                0,
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                Measurement.histogram(),
                List.of(),
                0,
                OptionalLong.empty(),
                OptionalLong.empty(),
                0,
                ParkCounts.NONE);

        assertThat(plan)
                .extracting(Scenario::key)
                .containsExactly("leader-latch", "leader-selector", "leader-initiator", "leader-registry-initiator");
        for (Scenario scenario : plan) {
            List<BenchRow> rows = scenario.rows(Map.of(Side.ZKLOCK, none, Side.CURATOR, none));
            assertThat(rows)
                    .filteredOn(row -> row.target() != null)
                    .extracting(BenchRow::metric, row -> row.target().toString())
                    .containsExactly(
                            tuple(LeaderScenario.HAND_OVER_P50, "<= 50"),
                            tuple(LeaderScenario.REVOKED_AFTER_CUT, "<= 1433"),
                            tuple(LeaderScenario.NEXT_AFTER_KILL, "<= 3000"));
        }
    }
}
