package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.history.ReportRow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One short partition run of the real workloads, judged from outside: a real ensemble in namespaces, 3 client JVMs,
 * every kind of fault at least once, a fixed seed. For every zklock lock kind: no unexplained overlap, no lost or
 * duplicated fenced element, no linearizability verdict INVALID that an explained overlap does not account for, no
 * liveness violation; for zklock's elections (its latch and selector, run as leadership workloads by the same JVMs: more
 * threads, not more time), no term cut off without its revocation, no epoch that did not grow, no observer behind by
 * more than one event after a heal ({@link LeadershipChecker}); every lock kind and election of both libraries made
 * grants. Curator's rows are printed beside zklock's, not judged. Needs root (network namespaces), as CI's runner has.
 */
@Timeout(300)
final class PartitionsIT {
    private static final long SEED = Long.getLong("zklock.partitions.seed", 30);
    private static final Duration LENGTH = Duration.ofSeconds(80);

    @Test
    void run_shortRunOfEveryFaultKind_zklockKindsKeepEveryGuarantee() throws Exception {
        long started = System.nanoTime();
        PartitionResult result = PartitionRun.builder(SEED)
                .length(LENGTH)
                .clients(3)
                .schedule(NemesisSchedule.shortRun())
                .progress(line -> System.out.println("partitions: " + line))
                .build()
                .run();
        System.out.printf(
                "partitions: seed %d, %d s in all (replay -Dzklock.partitions.seed=%d); histories in %s%n%s%n",
                SEED,
                Duration.ofNanos(System.nanoTime() - started).toSeconds(),
                SEED,
                result.historyDir(),
                result.summary());
        System.out.printf("partitions: faults made %s, not made %s%n", result.faultsMade(), result.faultsFailed());

        assertThat(result.exitCodes()).as("every JVM's exit code").allSatisfy((node, code) -> assertThat(code)
                .hasValue(0));
        assertThat(result.violations())
                .as("zklock's violations, histories in %s", result.historyDir())
                .isEmpty();
        assertThat(result.faultsMade().keySet())
                .as("fault kinds made")
                .containsExactlyInAnyOrder(NemesisFault.values());
        List<String> kinds = PartitionWorkloads.keys().stream()
                .map(key -> key.substring(PartitionWorkloads.ROOT.length() + 1).replace('/', ' '))
                .toList();
        assertThat(result.rows())
                .as("every lock kind of both libraries made grants")
                .filteredOn(row -> row.holds() > 0)
                .extracting(row -> row.library() + " " + row.kind())
                .containsAll(kinds);
        assertThat(result.rows())
                .filteredOn(row -> row.library().equals("zklock"))
                .allSatisfy(PartitionsIT::judged);
    }

    private static void judged(ReportRow row) {
        assertThat(row.unexplainedOverlaps())
                .as("unexplained overlaps of zklock %s", row.kind())
                .isZero();
        assertThat(row.lostElements())
                .as("lost elements of zklock %s", row.kind())
                .isZero();
        assertThat(row.duplicatedElements())
                .as("duplicated elements of zklock %s", row.kind())
                .isZero();
        assertThat(row.livenessViolations())
                .as("liveness violations of zklock %s", row.kind())
                .isZero();
    }
}
