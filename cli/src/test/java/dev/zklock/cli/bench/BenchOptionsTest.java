package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.cli.CommandRun;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code zklock bench} on a server named by {@code --connect}, and its answers to bad input. */
@Timeout(60)
final class BenchOptionsTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void bench_connect_measuresThatServerAndLeavesNothingBehind() throws Exception {
        CommandRun run = CommandRun.of(
                "bench", "--quick", "--connect", zk.connectString(), "--recipes", "exclusive", "--clients", "2");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains(
                        "ZooKeeper at " + zk.connectString(),
                        "ZkExclusiveLock.mutexLayout vs InterProcessSemaphoreMutex")
                .contains("2 clients", "raw floor");
        assertThat(zk.newClient().checkExists().forPath("/zklock-bench")).isNull();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--connect|localhost:99999|malformed connect string 'localhost:99999'",
                "--recipes|reentrant,barrier|unknown recipe 'barrier'",
                "--clients|2,1|--clients counts must be 2 to 256, not 1",
                "--threads|0|--threads counts must be 2 to 256, not 0",
                "--seconds|0|--seconds must be more than 0",
                "--rounds|0|--rounds must be at least 1, not 0",
                "--only|no-such-row|--only no-such-row matches no scenario",
                "--cluster|12|--cluster must be 1 to 9 servers, not 12"
            })
    void bench_badOption_failsAsBadUsageNamingTheValue(String option, String value, String message) {
        CommandRun run = CommandRun.of("bench", option, value);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(message);
    }

    @Test
    void bench_connectAndCluster_failsAsBadUsage() {
        CommandRun run = CommandRun.of("bench", "--connect", zk.connectString(), "--cluster", "3");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--connect and --cluster exclude each other");
    }

    @Test
    @Timeout(30)
    void bench_unreachableServer_failsWithinTheTimeLimit() throws IOException {
        String connect = "127.0.0.1:" + CommandRun.closedPort();

        CommandRun run = CommandRun.of("bench", "--quick", "--timeout-ms", "1000", "--connect", connect);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("cannot reach ZooKeeper at '" + connect + "' within 1000 ms");
    }
}
