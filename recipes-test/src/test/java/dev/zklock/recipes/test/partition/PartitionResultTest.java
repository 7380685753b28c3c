package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.history.CheckResult;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.Hold;
import dev.zklock.recipes.test.history.Overlap;
import dev.zklock.recipes.test.history.ReportRow;
import dev.zklock.recipes.test.history.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Which findings of a run are zklock's violations, on hand-made rows and checker results. */
final class PartitionResultTest {
    private static final String ZK = "/partitions/zklock/exclusive";
    private static final String CURATOR = "/partitions/curator/mutex";

    @Test
    void violations_zklockRowsFindings_listedAndCuratorsNot() {
        PartitionResult result =
                result(List.of(row("zklock", "exclusive", 2, 1, 0, 3), row("curator", "mutex", 5, 5, 5, 5)), Map.of());

        assertThat(result.violations())
                .containsExactly(
                        "zklock exclusive: 2 unexplained overlaps",
                        "zklock exclusive: 1 lost fenced elements",
                        "zklock exclusive: 3 liveness violations");
    }

    @Test
    void violations_zklockHoldsSaidHeldAfterExpiryOrDishonest_listedAndCuratorsNot() {
        ReportRow zklock = new ReportRow("zklock", "cohort-alone", 10, 0, 0, 0, 0, 0, 0, 0, 0, 12, 1507, 0, 0);
        ReportRow curator = new ReportRow("curator", "mutex", 10, 0, 0, 0, 0, 0, 0, 0, 0, 14, 2, 0, 0);

        assertThat(result(List.of(zklock, curator), Map.of()).violations())
                .containsExactly(
                        "zklock cohort-alone: HELD up to 12 ms after its session expired",
                        "zklock cohort-alone: 1507 dishonest holds");
    }

    @Test
    void violations_invalidVerdicts_listedUnlessAnExplainedOverlapAccountsForThemOrTheyAreCurators() {
        Overlap explained = overlap(ZK, Optional.of("c1 paused 5000 ms, longer than the session"));
        Map<String, CheckResult> mutex = Map.of(
                ZK,
                invalid(ZK, Optional.of(explained)),
                ZK + "-alone",
                invalid(ZK + "-alone", Optional.empty()),
                CURATOR,
                invalid(CURATOR, Optional.empty()));

        PartitionResult result = result(List.of(), mutex);

        assertThat(result.violations())
                .singleElement()
                .asString()
                .startsWith(ZK + "-alone: not linearizable, c2.t1's acquire");
    }

    @Test
    void allExitedZero_aJvmKilledAfterTheGrace_isFalse() {
        PartitionResult clean = result(List.of(), Map.of());
        PartitionResult killed =
                result(List.of(), Map.of(), Map.of("c1", OptionalInt.of(0), "obs", OptionalInt.empty()));

        assertThat(clean.allExitedZero()).isTrue();
        assertThat(killed.allExitedZero()).isFalse();
    }

    private static PartitionResult result(List<ReportRow> rows, Map<String, CheckResult> mutex) {
        return result(rows, mutex, Map.of("c1", OptionalInt.of(0)));
    }

    private static PartitionResult result(
            List<ReportRow> rows, Map<String, CheckResult> mutex, Map<String, OptionalInt> exits) {
        return new PartitionResult(
                "zkp0001",
                Path.of("run"),
                Path.of("run/histories"),
                List.of(),
                History.of(List.of()),
                Map.of(),
                PartitionResult.report(Duration.ofSeconds(4)),
                rows,
                mutex,
                Map.of(),
                Map.of(),
                Map.of(),
                exits);
    }

    private static ReportRow row(String library, String kind, long unexplained, long lost, long dup, long liveness) {
        return new ReportRow(library, kind, 10, 0, 0, unexplained, 0, 0, 0, lost, dup, 0, 0, liveness, 0);
    }

    private static CheckResult invalid(String key, Optional<Overlap> witness) {
        return new CheckResult(
                key,
                Verdict.INVALID,
                2,
                10,
                1_000,
                witness,
                "c2.t1's acquire exclusive [5, 6] fits no order",
                witness.map(List::of).orElse(List.of()));
    }

    private static Overlap overlap(String key, Optional<String> why) {
        Hold first = new Hold("c1.t1", key, "exclusive", OptionalLong.of(1), 1, 2, 10);
        Hold second = new Hold("c2.t1", key, "exclusive", OptionalLong.of(2), 4, 6, 12);
        return new Overlap(first, second, 6, 10, why);
    }
}
