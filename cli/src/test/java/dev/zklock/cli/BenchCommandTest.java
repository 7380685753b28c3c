package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code zklock bench --quick} on its own embedded server, run once for the class: every row of every recipe is there,
 * with figures for both libraries and the request counts the server made. No timing is asserted: speed is for the bench
 * to report, not for a unit test to judge.
 */
@Timeout(120)
final class BenchCommandTest {
    @TempDir
    static Path dir;

    private static CommandRun run;
    private static Map<String, Object> report;

    @BeforeAll
    static void benchOnce() {
        run = CommandRun.of(
                "bench", "--quick", "--json", "--plot", dir.resolve("bench.png").toString());
        report = run.exitCode() == 0 ? JsonReader.object(run.out()) : Map.of();
    }

    @Test
    void bench_quick_exitsZeroWithOneLineOfJson() {
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().strip()).doesNotContain("\n");
        assertThat((String) report.get("setting")).contains("embedded ZooKeeper, 1 server");
        assertThat(report).containsEntry("overlaps", 0.0);
    }

    @Test
    void bench_quick_runsEveryScenarioOfEveryRecipe() {
        List<String> planned = BenchPlan.of(BenchPlan.RECIPES, List.of(2, 4), List.of(4)).stream()
                .map(Scenario::key)
                .toList();

        List<String> ran = JsonReader.objects(report.get("scenarios")).stream()
                .map(scenario -> (String) scenario.get("key"))
                .toList();

        assertThat(ran).containsExactlyElementsOf(planned).contains("readwrite-mix-8-1", "multi-crossed-2");
    }

    @Test
    void bench_quick_everyComparedRowHasBothFiguresAndTheirRatio() {
        List<Map<String, Object>> rows = JsonReader.objects(report.get("rows"));

        assertThat(rows).isNotEmpty();
        for (Map<String, Object> row : rows) {
            if (row.get("group").toString().startsWith("raw floor")) {
                assertThat(row.get("zklock")).as("%s", row).isNotNull();
            } else if (!row.get("metric").toString().startsWith("hand-off") && !isCrossed(row)) {
                assertThat(row).as("%s", row).doesNotContainEntry("zklock", null);
                assertThat(row).as("%s", row).doesNotContainEntry("curator", null);
                if (!row.get("curator").equals(0.0)) { // e.g. no watch event in so short a run: no ratio
                    assertThat(row).as("%s", row).doesNotContainEntry("ratio", null);
                }
            }
        }
    }

    /**
     * Counted by the server, not guessed; the pings of idle clients add a little at most. An uncontended cycle of a
     * lock or a read lock: a create, a listing and a delete, on both sides. The raw floor: a create and a delete. A
     * multi-lock over 8 paths: for zklock, one transaction of 8 creates with the 8 listings pipelined behind it, and one
     * transaction of 8 deletes; for Curator, a create, a listing and a delete per path.
     */
    @ParameterizedTest(name = "{0}, {1}, {2}: {3} requests per cycle")
    @CsvSource(
            delimiter = '|',
            value = {
                "ZkReentrantLock vs InterProcessMutex|uncontended|zklock|3",
                "ZkReentrantLock vs InterProcessMutex|uncontended|curator|3",
                LockScenario.RAW_FLOOR + "|uncontended|zklock|2",
                "ZkReadWriteLock vs InterProcessReadWriteLock|uncontended, read lock|zklock|3",
                "ZkReadWriteLock vs InterProcessReadWriteLock|uncontended, read lock|curator|3",
                "ZkMultiLock vs InterProcessMultiLock|uncontended, 8 paths|zklock|3",
                "ZkMultiLock vs InterProcessMultiLock|uncontended, 8 paths|curator|24"
            })
    void bench_quick_countsTheRequestsOfEachCycle(String group, String scenario, String side, double requests) {
        assertThat(figure(group, scenario, "requests per cycle", side)).isBetween(requests, requests + 0.1);
    }

    @Test
    void bench_quick_crossedMultiLocksShowTheTimedOutShareOfBothSides() {
        // Curator may time out on every acquire of so short a run (its first deadlock lasts the whole timeout), so its
        // rates may be n/a; the timed-out share of each side is always known.
        Map<String, Object> timedOut = JsonReader.objects(report.get("rows")).stream()
                .filter(row -> isCrossed(row) && row.get("metric").equals(CrossedMultiLockScenario.TIMED_OUT))
                .findFirst()
                .orElseThrow();

        assertThat(timedOut).doesNotContainEntry("zklock", null).doesNotContainEntry("curator", null);
        assertThat(timedOut.get("met")).isInstanceOf(Boolean.class);
    }

    @Test
    void bench_quick_targetsAreMarkedMetOrMissed() {
        List<Map<String, Object>> targeted = JsonReader.objects(report.get("rows")).stream()
                .filter(row -> row.get("target") != null)
                .toList();

        assertThat(targeted).isNotEmpty().allSatisfy(row -> assertThat(row.get("met"))
                .isInstanceOf(Boolean.class));
    }

    @Test
    void bench_quick_showsProgressOnTheErrorStream() {
        assertThat(run.err()).contains("[#", "round 1/1");
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

    private static boolean isCrossed(Map<String, Object> row) {
        return row.get("scenario").toString().contains("opposite orders");
    }

    private static double figure(String group, String scenario, String metric, String side) {
        return JsonReader.objects(report.get("rows")).stream()
                .filter(row -> row.get("group").equals(group)
                        && row.get("scenario").equals(scenario)
                        && row.get("metric").equals(metric))
                .map(row -> (Double) row.get(side))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row " + group + " / " + scenario + " / " + metric));
    }
}
