package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.zklock.cli.CommandRun;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code zklock bench --quick} on its own embedded server, run once for the class: every row of every recipe but the
 * leadership rows ({@link LeaderBenchTest}) is there,
 * with figures for both libraries and the request counts the server made. No timing is asserted: speed is for the bench
 * to report, not for a unit test to judge.
 */
@Timeout(120)
final class BenchCommandTest {
    @TempDir
    static Path dir;

    private static final String REENTRANT = "ZkReentrantLock vs InterProcessMutex";

    /** Every recipe but the leadership rows, which {@link LeaderBenchTest} runs with a plan small enough for a test. */
    private static final List<String> RECIPES = BenchPlan.RECIPES.stream()
            .filter(recipe -> !recipe.equals("leader"))
            .toList();

    private static CommandRun run;
    private static JsonNode report;

    @BeforeAll
    static void benchOnce() {
        run = CommandRun.of(
                "bench",
                "--quick",
                "--json",
                "--plot",
                dir.resolve("bench.png").toString(),
                "--jfr",
                dir.resolve("bench.jfr").toString(),
                "--recipes",
                String.join(",", RECIPES));
        report = run.exitCode() == 0 ? run.json() : MissingNode.getInstance();
    }

    @Test
    void bench_quick_exitsZeroWithOneLineOfJson() {
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().strip()).doesNotContain("\n");
        assertThat(report.path("setting").asText()).contains("embedded ZooKeeper, 1 server");
        assertThat(report.path("overlaps").asLong(-1)).isZero();
    }

    @Test
    void bench_quick_saysTheDateMachineBuildAndCommandItCameFrom() {
        List<String> origin =
                report.path("origin").valueStream().map(JsonNode::asText).toList();

        assertThat(origin).hasSize(5);
        assertThat(origin.get(0)).matches("date: \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC");
        assertThat(origin.get(1))
                .startsWith("machine: ")
                .contains(Runtime.getRuntime().availableProcessors() + " cores")
                .containsPattern("load average (\\d+\\.\\d\\d|unknown) at the start, \\d+\\.\\d\\d at the end");
        assertThat(report.path("load").path("cores").asInt())
                .isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(report.path("load").path("loaded").isBoolean()).isTrue();
        assertThat(origin.get(2)).startsWith("build: zklock ");
        assertThat(origin.get(3)).startsWith("software: Curator ").contains("Java " + Runtime.version());
        assertThat(origin.get(4)).startsWith("command: `./zklock bench --quick --json --plot ");
    }

    @Test
    void bench_quick_runsEveryScenarioOfEveryRecipe() {
        List<String> planned = BenchPlan.of(RECIPES, List.of(2, 4), List.of(4)).stream()
                .map(Scenario::key)
                .toList();

        List<String> ran = report.path("scenarios")
                .valueStream()
                .map(scenario -> scenario.path("key").asText())
                .toList();

        assertThat(ran)
                .containsExactlyElementsOf(planned)
                .contains(
                        "readwrite-mix-8-1",
                        "multi-crossed-2",
                        "reentrant-local-hand-off-shared-lock-4",
                        "reentrant-local-hand-off-client-cohorts-2x16",
                        "reentrant-keep-idle-cached-1",
                        "reentrant-keep-idle-second-client",
                        "readwrite-read-local-hand-off-mix-8-1");
    }

    @Test
    void bench_quick_everyComparedRowHasBothFiguresAndTheirRatio() {
        JsonNode rows = report.path("rows");

        assertThat(rows.isEmpty()).isFalse();
        for (JsonNode row : rows) {
            if (!row.path("metric").asText().startsWith("hand-off") && !isCrossed(row)) {
                assertThat(row.path("zklock").isNull()).as("%s", row).isFalse();
                assertThat(row.path("curator").isNull()).as("%s", row).isFalse();
                // No ratio where a side shows as zero, e.g. no watch event in so short a run.
                double quotient = BenchRow.quotient(
                        row.path("metric").asText(),
                        row.path("zklock").asDouble(),
                        row.path("curator").asDouble());
                assertThat(row.path("ratio").isNull()).as("%s", row).isEqualTo(Double.isNaN(quotient));
            }
        }
    }

    @Test
    void bench_quick_floorsAndBaselinesAreApartWithOneFigureEach() {
        List<JsonNode> floors = report.path("floors").valueStream().toList();

        assertThat(floors).isNotEmpty().allSatisfy(floor -> assertThat(floor.has("value"))
                .as("%s", floor)
                .isTrue());
        assertThat(floors).filteredOn(BenchCommandTest::isReference).allSatisfy(floor -> assertThat(
                        floor.path("value").isNumber())
                .as("%s", floor)
                .isTrue());
        assertThat(report.path("rows").valueStream().map(row -> row.path("group")
                        .asText()))
                .doesNotContain(LockScenario.RAW_FLOOR, LockScenario.JDK_FAIR_LOCK);
    }

    /**
     * Counted by the server, not guessed; the pings of idle clients add a little at most. An uncontended cycle of a
     * lock or a read lock: a create, a listing and a delete, on both sides, and for zklock the read that sets the
     * hold's voucher (a watch on its own node). The raw floor: a create and a delete. A multi-lock over 8 paths: for
     * zklock, one transaction of 8 creates with the 8 listings pipelined behind it, a voucher's read per node, and one
     * transaction of 8 deletes; for Curator, a create, a listing and a delete per path.
     */
    @ParameterizedTest(name = "{0}, {1}, {2}: {3} requests per cycle")
    @CsvSource(
            delimiter = '|',
            value = {
                "ZkReentrantLock vs InterProcessMutex|uncontended|zklock|4",
                "ZkReentrantLock vs InterProcessMutex|uncontended|curator|3",
                LockScenario.RAW_FLOOR + "|uncontended|value|2",
                "ZkReadWriteLock vs InterProcessReadWriteLock|uncontended, read lock|zklock|4",
                "ZkReadWriteLock vs InterProcessReadWriteLock|uncontended, read lock|curator|3",
                "ZkMultiLock vs InterProcessMultiLock|uncontended, 8 paths|zklock|11",
                "ZkMultiLock vs InterProcessMultiLock|uncontended, 8 paths|curator|24"
            })
    void bench_quick_countsTheRequestsOfEachCycle(String group, String scenario, String side, double requests) {
        assertThat(figure(group, scenario, "requests per cycle", side)).isBetween(requests, requests + 0.1);
    }

    @Test
    void bench_quick_heldLocksShowTheHeapEachHeldLockAndLockObjectCostsBothClientsAndTheWatchedFloor() {
        String scenario = "10,000 locks held by one client, one per path";

        // At least a node's path and a hold's record each, in the client JVM alone.
        assertThat(figure(REENTRANT, scenario, HeldLocksScenario.HEAP_PER_HELD_LOCK, "zklock"))
                .isGreaterThan(64);
        assertThat(figure(REENTRANT, scenario, HeldLocksScenario.HEAP_PER_HELD_LOCK, "curator"))
                .isGreaterThan(64);
        // At least the object and its lock path each.
        assertThat(figure(REENTRANT, scenario, HeldLocksScenario.HEAP_PER_LOCK_OBJECT, "zklock"))
                .isGreaterThan(64);
        assertThat(figure(REENTRANT, scenario, HeldLocksScenario.HEAP_PER_LOCK_OBJECT, "curator"))
                .isGreaterThan(64);
        // Curator's hold and a watch on its node: ZooKeeper's client keeps a map entry and a set for each watched path.
        assertThat(figure(HeldLocksScenario.WATCHED_FLOOR, scenario, HeldLocksScenario.HEAP_PER_HELD_LOCK, "value"))
                .isGreaterThan(figure(REENTRANT, scenario, HeldLocksScenario.HEAP_PER_HELD_LOCK, "curator"));
        assertThat(figure(HeldLocksScenario.WATCHED_FLOOR, scenario, HeldLocksScenario.HEAP_PER_LOCK_OBJECT, "value"))
                .isGreaterThan(64);
    }

    @Test
    void bench_quick_aCachedLockCostsNoRequestAfterItsFirstCycle() {
        assertThat(figure(REENTRANT, "keepIdle, 1 thread", LockScenario.REQUESTS_AFTER_THE_FIRST, "zklock"))
                .isBetween(0.0, 0.1);
        assertThat(figure(REENTRANT, "keepIdle, 1 thread", LockScenario.REQUESTS_AFTER_THE_FIRST, "curator"))
                .isBetween(3.0, 3.1);
    }

    @Test
    void bench_quick_twoClientsWithLocalHandOff_shareEveryAcquisitionBetweenThem() {
        String scenario = "2 clients x 16 threads, local hand-off";
        for (String side : List.of("zklock", "curator")) {
            double first = figure(REENTRANT, scenario, ClientCohortScenario.clientShare(1), side);
            double second = figure(REENTRANT, scenario, ClientCohortScenario.clientShare(2), side);

            assertThat(first + second).as(side).isCloseTo(100.0, org.assertj.core.data.Offset.offset(0.01));
            assertThat(figure(REENTRANT, scenario, ClientCohortScenario.SWITCH_WAIT_P99, side))
                    .as(side)
                    .isPositive();
        }
    }

    @Test
    void bench_quick_localHandOffRunsBesideAJdkFairLockShownWithOneFigure() {
        double jdk = figure(LockScenario.JDK_FAIR_LOCK, "4 threads, 1 lock object", "acquisitions/s", "value");
        double zklock = figure(REENTRANT, "4 threads, 1 lock object, local hand-off", "acquisitions/s", "zklock");

        assertThat(jdk).isPositive();
        assertThat(figure(REENTRANT, "4 threads, 1 lock object, local hand-off", LockScenario.VS_JDK, "zklock"))
                .isCloseTo(zklock / jdk, org.assertj.core.data.Offset.offset(0.01));
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void bench_quick_localHandOffShowsEachSidesThreadSwitchesPerAcquisition_theJdkLocksWithOneFigure() {
        String scenario = "4 threads, 1 lock object, local hand-off";

        // 4 threads pass one lock: the waiters park, so switches are counted on every side
        assertThat(figure(REENTRANT, scenario, LockScenario.THREAD_SWITCHES_PER_ACQUISITION, "zklock"))
                .isPositive();
        assertThat(figure(REENTRANT, scenario, LockScenario.THREAD_SWITCHES_PER_ACQUISITION, "curator"))
                .isPositive();
        assertThat(figure(
                        LockScenario.JDK_FAIR_LOCK,
                        "4 threads, 1 lock object",
                        LockScenario.THREAD_SWITCHES_PER_ACQUISITION,
                        "value"))
                .isNotNegative();
    }

    @Test
    void bench_quick_jdkFairLockShowsTheShareOfItsAcquiresThatFoundItFree() {
        assertThat(figure(LockScenario.JDK_FAIR_LOCK, "4 threads, 1 lock object", LockScenario.FOUND_FREE, "value"))
                .isBetween(0.0, 100.0);
    }

    @Test
    void bench_quick_readerThreadsWithLocalHandOffShowTheWritersWait() {
        String group = "ZkReadWriteLock vs InterProcessReadWriteLock";
        String scenario = "8 reader threads + 1 writer client, local hand-off";

        assertThat(figure(group, scenario, ReadWriteScenario.WRITER_WAIT_P99, "zklock"))
                .isPositive();
        assertThat(figure(group, scenario, ReadWriteScenario.WRITER_WAIT_P99, "curator"))
                .isPositive();
        assertThat(figure(group, scenario, ReadWriteScenario.READER_ACQUISITIONS_PER_SECOND, "zklock"))
                .isPositive();
    }

    @Test
    void bench_quick_crossedMultiLocksShowTheTimedOutShareOfBothSides() {
        // Curator may time out on every acquire of so short a run (its first deadlock lasts the whole timeout), so its
        // rates may be n/a; the timed-out share of each side is always known.
        JsonNode timedOut = report.path("rows")
                .valueStream()
                .filter(row -> isCrossed(row) && row.path("metric").asText().equals(CrossedMultiLockScenario.TIMED_OUT))
                .findFirst()
                .orElseThrow();

        assertThat(timedOut.path("zklock").isNull()).isFalse();
        assertThat(timedOut.path("curator").isNull()).isFalse();
        assertThat(timedOut.path("met").isBoolean()).isTrue();
    }

    @Test
    void bench_quick_targetsAreMarkedMetOrMissed() {
        List<JsonNode> targeted = report.path("rows")
                .valueStream()
                .filter(row -> row.hasNonNull("target"))
                .toList();

        assertThat(targeted)
                .isNotEmpty()
                .allSatisfy(row ->
                        assertThat(row.path("met").isBoolean()).as("%s", row).isTrue());
    }

    @Test
    void bench_quick_showsProgressOnTheErrorStream() {
        assertThat(run.err()).contains("[#", "round 1/1");
    }

    @Test
    void bench_jfr_recordsZklocksAcquisitionsAndHoldsOfTheRun() throws Exception {
        List<RecordedEvent> events = RecordingFile.readAllEvents(dir.resolve("bench.jfr"));

        List<RecordedEvent> acquisitions = events.stream()
                .filter(e -> e.getEventType().getName().equals("dev.zklock.Acquisition"))
                .toList();
        assertThat(acquisitions).isNotEmpty().anyMatch(e -> e.getBoolean("localPass"));
        assertThat(acquisitions).extracting(e -> e.getString("outcome")).contains("GRANTED");
        assertThat(events)
                .filteredOn(e -> e.getEventType().getName().equals("dev.zklock.Hold"))
                .isNotEmpty()
                .allMatch(e -> e.getLong("fencingToken") > 0);
        assertThat(run.err()).contains("JFR recording written to " + dir.resolve("bench.jfr"));
    }

    @Test
    void bench_plot_writesAPngImage() throws Exception {
        Path png = dir.resolve("bench.png");

        assertThat(png).exists();
        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1060);
        assertThat(image.getHeight()).isEqualTo(560);
        assertThat(Files.size(png)).isGreaterThan(1000);
    }

    private static boolean isReference(JsonNode floor) {
        String name = floor.path("floor").asText();
        return name.equals(LockScenario.RAW_FLOOR) || name.equals(LockScenario.JDK_FAIR_LOCK);
    }

    private static boolean isCrossed(JsonNode row) {
        return row.path("scenario").asText().contains("opposite orders");
    }

    /** Returns a figure of a row, the side's ("zklock", "curator"), or of a floor ("value"). */
    private static double figure(String group, String scenario, String metric, String side) {
        boolean floor = side.equals("value");
        return report.path(floor ? "floors" : "rows")
                .valueStream()
                .filter(row -> row.path(floor ? "floor" : "group").asText().equals(group)
                        && row.path("scenario").asText().equals(scenario)
                        && row.path("metric").asText().equals(metric))
                .map(row -> row.path(side).asDouble(Double.NaN))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row " + group + " / " + scenario + " / " + metric));
    }
}
