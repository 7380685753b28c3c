package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The servers' counters as the bench reads them, against an embedded server with clients of the bench's pool. */
final class ServerReadingsTest {

    @Test
    void sessionsReading_countsTheNamedClientsRequestsAlone_whereTheServerWideOneCountsEveryClients() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            CuratorFramework measured = ensemble.client(0);
            CuratorFramework other = ensemble.client(1);
            measured.checkExists().forPath("/"); // both sessions connected before the first reading
            other.checkExists().forPath("/");
            Optional<ServerReadings> sessionsBefore = ensemble.counters(List.of(measured));
            Optional<ServerReadings> allBefore = ensemble.counters();

            for (int i = 0; i < 3; i++) {
                measured.checkExists().forPath("/");
            }
            for (int i = 0; i < 5; i++) {
                other.checkExists().forPath("/");
            }

            ServerReadings.Window all = ServerReadings.Window.between(allBefore, ensemble.counters());
            ServerReadings.Window sessions =
                    ServerReadings.Window.between(sessionsBefore, ensemble.counters(List.of(measured)));
            assertThat(sessions.requests()).hasValue(3);
            assertThat(sessions.watchEvents()).hasValue(0);
            assertThat(all.requests()).hasValue(3 + 5);
        }
    }
}
