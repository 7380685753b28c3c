package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.Faults;
import dev.zklock.recipes.test.ZooKeeperExtension;
import dev.zklock.recipes.test.history.FileCounter;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client JVMs of the partition rig run in-process against a real server, with the observer beside them: what their
 * histories say, and what the shared stores hold at the end.
 */
@Timeout(60)
final class PartitionClientTest {
    private static final int SESSION_TIMEOUT_MS = 10_000;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @TempDir
    Path dir;

    @Test
    void run_twoClientsWithoutFaults_pairEveryAcquireAndLoseNoUpdateNorElement() throws Exception {
        Path store = dir.resolve("store");
        AtomicBoolean clientsDone = new AtomicBoolean();
        CompletableFuture<Void> observer = observe(store, clientsDone::get);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (String id : List.of("c1", "c2")) {
            PartitionClient client = new PartitionClient(options(id, store));
            clients.add(inThread(() -> client.run(() -> System.nanoTime() - end >= 0)));
        }
        CompletableFuture.allOf(clients.toArray(CompletableFuture[]::new)).get();
        clientsDone.set(true);
        observer.get();

        History history = History.read(dir.resolve("c1"), dir.resolve("c2"), dir.resolve("observer"));
        assertThat(Histories.unpaired(history)).isEmpty();
        for (String key : PartitionWorkloads.keys()) {
            assertThat(Histories.events(history, Type.OK, "acquire", key))
                    .as(key)
                    .isNotEmpty();
        }
        for (String key : PartitionWorkloads.fencedKeys()) {
            List<Long> tokens = Histories.exclusiveTokens(history, key).stream()
                    .map(Long::valueOf)
                    .toList();
            assertThat(tokens).as(key).isSorted().doesNotHaveDuplicates();
            assertCountersAndSets(history, store, key);
        }
        assertThat(history.withF("state")).isEmpty();
        List<HistoryEvent> sessions = history.withF("session");
        assertThat(sessions)
                .filteredOn(event -> event.type() != Type.INFO)
                .extracting(HistoryEvent::process, HistoryEvent::type)
                .containsExactlyInAnyOrder(
                        tuple("c1", Type.INVOKE),
                        tuple("c2", Type.INVOKE),
                        tuple("observer", Type.OK),
                        tuple("observer", Type.OK));
        for (String client : List.of("c1", "c2")) {
            String session = Histories.events(history, Type.INVOKE, "session", "-").stream()
                    .filter(event -> event.process().equals(client))
                    .findFirst()
                    .orElseThrow()
                    .value()
                    .split(" ")[1];
            List<HistoryEvent> grants = history.events().stream()
                    .filter(event -> event.process().startsWith(client + ".") && event.type() == Type.OK)
                    .filter(event -> event.f().equals("acquire"))
                    .toList();
            assertThat(sessions)
                    .as("the session each grant of %s names", client)
                    .filteredOn(event ->
                            event.type() == Type.INFO && event.process().startsWith(client + "."))
                    .extracting(HistoryEvent::value)
                    .hasSize(grants.size())
                    .containsOnly(session);
        }
    }

    @Test
    void run_whenAClientsSessionExpires_observerRecordsItExpiredAndTheClientRecordsItsNewSession() throws Exception {
        Path store = dir.resolve("store");
        AtomicBoolean clientDone = new AtomicBoolean();
        AtomicBoolean observerDone = new AtomicBoolean();
        CompletableFuture<Void> observer = observe(store, observerDone::get);
        PartitionClient client = new PartitionClient(options("c1", store));
        CompletableFuture<Void> running = inThread(() -> client.run(clientDone::get));
        CuratorFramework admin = zk.newClient();
        String presence = PartitionWorkloads.CLIENTS + "/c1";
        await().until(() -> admin.checkExists().forPath(presence) != null);

        long first = Faults.expireSession(client.client(), zk.connectString(), SESSION_TIMEOUT_MS, session -> {});

        await().until(() -> {
            Stat stat = admin.checkExists().forPath(presence);
            return stat != null && stat.getEphemeralOwner() != first;
        });
        clientDone.set(true);
        running.get();
        await().until(() -> Histories.countQuietly(dir.resolve("observer"), " expired") == 2);
        observerDone.set(true);
        observer.get();
        History history = History.read(dir.resolve("c1"), dir.resolve("observer"));
        List<HistoryEvent> started = Histories.events(history, Type.INVOKE, "session", "-");
        List<HistoryEvent> ended = Histories.events(history, Type.OK, "session", "-");
        assertThat(started).extracting(HistoryEvent::process).containsExactly("c1", "c1");
        assertThat(started.get(0).value()).isNotEqualTo(started.get(1).value());
        assertThat(ended)
                .extracting(HistoryEvent::process, HistoryEvent::value)
                .containsExactly(
                        tuple("observer", started.get(0).value() + " expired"),
                        tuple("observer", started.get(1).value() + " expired"));
        assertThat(ended.get(0).nanos()).isGreaterThan(started.get(0).nanos());
        assertThat(Histories.unpaired(history)).isEmpty();
    }

    private ClientOptions options(String id, Path store) {
        return new ClientOptions(
                id, zk.connectString(), dir.resolve(id), 42, Duration.ofSeconds(4), SESSION_TIMEOUT_MS, store);
    }

    private ObserverOptions observerOptions(Path store) {
        return new ObserverOptions(
                zk.connectString(), dir.resolve("observer"), Duration.ZERO, store, Duration.ofSeconds(20), 0);
    }

    private CompletableFuture<Void> observe(Path store, BooleanSupplier stop) {
        PartitionObserver observer =
                new PartitionObserver(observerOptions(store), new BufferedReader(new StringReader("")));
        return inThread(() -> observer.run(stop));
    }

    private static void assertCountersAndSets(History history, Path store, String key) {
        List<HistoryEvent> counted = Histories.events(history, Type.OK, "counter", key);
        assertThat(FileCounter.open(PartitionWorkloads.counterFile(store, key)).read())
                .as("counter of %s", key)
                .isEqualTo(counted.size());
        assertThat(Histories.events(history, Type.INFO, "counter", key)).isEmpty();
        assertThat(Histories.events(history, Type.FAIL, "add", key))
                .as("adds refused on %s", key)
                .isEmpty();
        assertThat(Histories.events(history, Type.INFO, "add", key)).isEmpty();
        List<String> added = Histories.events(history, Type.OK, "add", key).stream()
                .map(event -> event.value().split(" ")[0])
                .toList();
        List<HistoryEvent> read = Histories.events(history, Type.OK, "read-set", key);
        assertThat(read).hasSize(1);
        String value = read.get(0).value();
        assertThat(value.equals("-") ? List.of() : List.of(value.split(",")))
                .as("set of %s", key)
                .containsExactlyElementsOf(added);
    }

    /** Runs {@code body} on a daemon thread of its own. */
    private static CompletableFuture<Void> inThread(Body body) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                body.run();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }
}
