package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code zklock bench --cluster 3}: the bench on an embedded three-server ensemble, with counts from every server. */
@Timeout(120)
final class BenchClusterIT {
    @Test
    void bench_cluster_measuresOnThreeServersAndCountsOnAllOfThem() {
        CommandRun run = CommandRun.of(
                "bench",
                "--quick",
                "--json",
                "--cluster",
                "3",
                "--recipes",
                "reentrant",
                "--clients",
                "2",
                "--threads",
                "2");

        assertThat(run.exitCode()).as(run.err()).isZero();
        Map<String, Object> report = JsonReader.object(run.out());
        assertThat((String) report.get("setting")).contains("ensemble, 3 servers");
        List<Map<String, Object>> rows = JsonReader.objects(report.get("rows"));
        Map<String, Object> requests = rows.stream()
                .filter(row -> row.get("scenario").equals("uncontended")
                        && row.get("metric").equals("requests per cycle")
                        && row.get("group").toString().startsWith("ZkReentrantLock"))
                .findFirst()
                .orElseThrow();
        assertThat((Double) requests.get("zklock")).isBetween(3.0, 3.1);
    }
}
