package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.zklock.cli.CommandRun;
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
        JsonNode report = run.json();
        assertThat(report.path("setting").asText()).contains("ensemble, 3 servers");
        JsonNode requests = report.path("rows")
                .valueStream()
                .filter(row -> row.path("scenario").asText().equals("uncontended")
                        && row.path("metric").asText().equals("requests per cycle")
                        && row.path("group").asText().startsWith("ZkReentrantLock"))
                .findFirst()
                .orElseThrow();
        // a create and a listing, the read that sets the hold's voucher, and a delete
        assertThat(requests.path("zklock").asDouble(Double.NaN)).isBetween(4.0, 4.1);
    }
}
