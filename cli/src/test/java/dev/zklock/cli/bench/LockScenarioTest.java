package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
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
