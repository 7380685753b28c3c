package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.test.ZooKeeperExtension;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a worker records of its hold's states, against a real server: each worker's release waits for the test, so the
 * connection drops while both are inside.
 */
@Timeout(60)
final class WorkerTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @TempDir
    Path dir;

    @Test
    void run_whenTheConnectionDropsInside_recordsInDoubtThenHeldForZklockAndInDoubtForCurator() throws Exception {
        CuratorFramework client = zk.newClient();
        CountDownLatch inside = new CountDownLatch(2);
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        Stores stores = new Stores(dir.resolve("store"), "c1");
        try (HistoryWriter history = HistoryWriter.open(dir.resolve("c1"))) {
            Target zklock =
                    heldUntil(ZkTargets.reentrant(client, zk.path("zklock")).get(0), inside, letGo);
            Target curator =
                    heldUntil(CuratorTargets.mutex(client, zk.path("curator")).get(0), inside, letGo);
            Worker zkWorker = worker("c1.t1", zk.path("zklock"), zklock, history, stores, stop, client);
            Worker curatorWorker = worker("c1.t2", zk.path("curator"), curator, history, stores, stop, client);
            zklock.addStateListener(zkWorker::stateChanged);
            client.getConnectionStateListenable().addListener((c, state) -> curatorWorker.connectionChanged(state));
            Thread zkThread = new Thread(zkWorker);
            Thread curatorThread = new Thread(curatorWorker);
            zkThread.start();
            curatorThread.start();
            inside.await();

            zk.dropConnection(client);

            await().until(() -> states("c1.t1").equals(List.of("IN_DOUBT", "HELD"))
                    && states("c1.t2").equals(List.of("IN_DOUBT")));
            stop.set(true);
            letGo.countDown();
            zkThread.join();
            curatorThread.join();
        }
        History history = History.read(dir.resolve("c1"));
        assertThat(Histories.unpaired(history)).isEmpty();
        assertThat(states("c1.t1")).containsExactly("IN_DOUBT", "HELD");
        assertThat(states("c1.t2")).containsExactly("IN_DOUBT");
        assertThat(history.withF("session"))
                .as("each grant names the client's session, one session throughout a dropped connection")
                .extracting(HistoryEvent::value)
                .containsOnly(Long.toHexString(
                        client.getZookeeperClient().getZooKeeper().getSessionId()))
                .hasSizeGreaterThanOrEqualTo(2);
    }

    private List<String> states(String process) {
        return History.read(dir.resolve("c1")).withF("state").stream()
                .filter(event -> event.process().equals(process))
                .map(HistoryEvent::value)
                .toList();
    }

    private static Worker worker(
            String process,
            String key,
            Target target,
            HistoryWriter history,
            Stores stores,
            AtomicBoolean stop,
            CuratorFramework client) {
        return new Worker(
                process,
                key,
                Mode.EXCLUSIVE,
                target,
                history,
                stores,
                new SplittableRandom(1),
                stop::get,
                () -> {
                    try {
                        return client.getZookeeperClient().getZooKeeper().getSessionId();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                Worker.MAX_OUTSIDE_MS,
                0,
                Worker.MAX_HOLD_MS);
    }

    /** The target, whose holds are released only once {@code letGo} opens; {@code inside} hears each release begin. */
    private static Target heldUntil(Target target, CountDownLatch inside, CountDownLatch letGo) {
        return new Target() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                return target.acquire(timeout)
                        .map(held -> new Held(held.token(), held.concerns(), held.state(), () -> {
                            inside.countDown();
                            letGo.await();
                            held.release().release();
                        }));
            }

            @Override
            public void addStateListener(LockStateListener listener) {
                target.addStateListener(listener);
            }

            @Override
            public boolean followsConnection() {
                return target.followsConnection();
            }
        };
    }
}
