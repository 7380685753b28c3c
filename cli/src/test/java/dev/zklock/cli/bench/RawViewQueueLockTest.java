package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The queue view's protocol on the raw handle, the floor beside the view's pair, against an embedded server. */
final class RawViewQueueLockTest {

    @Test
    void acquire_behindAnotherClientsNode_waitsForItsDeleteFromTheEventsAlone_aCreateAndADelete() throws Exception {
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            String path = "/raw-view";
            ensemble.makePath(path);
            CuratorFramework waiter = ensemble.client(1);
            RawViewQueueLock first = new RawViewQueueLock(ensemble.client(0), path);
            RawViewQueueLock second = new RawViewQueueLock(waiter, path);
            first.acquire();
            Optional<ServerReadings> before = ensemble.counters(List.of(waiter));

            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    second.acquire();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() -> ensemble.client(2).getChildren().forPath(path).size() == 2);
            assertThat(waiting).isNotDone();
            first.release();
            waiting.get(10, TimeUnit.SECONDS);
            assertThat(second.isAcquiredInThisProcess()).isTrue();
            second.release();

            ServerReadings.Window window = ServerReadings.Window.between(before, ensemble.counters(List.of(waiter)));
            assertThat(window.requests()).hasValue(2);
            first.close();
            second.close();
            assertThat(ensemble.client(2).getChildren().forPath(path)).isEmpty();
        }
    }
}
