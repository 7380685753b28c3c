package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.zklock.recipes.test.ZooKeeperExtension;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryEvent;
import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The observer's stranger against a real server, on a command of its own and on the rig's. (What the observer sees of the clients' sessions is in
 * {@link PartitionClientTest}, beside the clients.)
 */
@Timeout(60)
final class PartitionObserverTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @TempDir
    Path dir;

    @Test
    void stranger_deleteCommand_deletesTheFirstWaitersNodeAndRecordsIt() throws Exception {
        CuratorFramework admin = zk.newClient();
        String lockPath = zk.path("lock");
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            nodes.add(admin.create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(lockPath + "/lock-"));
        }
        String commands = "nonsense\ndelete " + lockPath + "\ndelete " + zk.path("nothing") + "\n";

        new PartitionObserver(observerOptions(), new BufferedReader(new StringReader(commands)))
                .run(() -> Histories.countQuietly(dir.resolve("observer"), "stranger-delete") == 3);

        List<HistoryEvent> lines = History.read(dir.resolve("observer")).withF("stranger-delete");
        assertThat(lines)
                .extracting(HistoryEvent::process, HistoryEvent::type, HistoryEvent::key)
                .containsExactly(
                        tuple("stranger", Type.INVOKE, lockPath),
                        tuple("stranger", Type.OK, lockPath),
                        tuple("stranger", Type.FAIL, zk.path("nothing")));
        assertThat(lines.get(0).value()).isEqualTo(nodes.get(1));
        assertThat(lines.get(1).value()).isEqualTo(nodes.get(1));
        assertThat(lines.get(1).nanos()).isGreaterThan(lines.get(0).nanos());
        assertThat(admin.getChildren().forPath(lockPath)).hasSize(2);
    }

    @Test
    void stranger_rigsCommand_sweepsAWaitersNodeOfEveryPathThenOnlyNodesThenFindsNone() throws Exception {
        CuratorFramework admin = zk.newClient();
        String waited = "/partitions/curator/mutex";
        String alsoWaited = "/partitions/zklock/reentrant";
        String alone = "/partitions/zklock/exclusive";
        List<String> waitedNodes = List.of(lockNode(admin, waited), lockNode(admin, waited));
        List<String> alsoWaitedNodes = List.of(lockNode(admin, alsoWaited), lockNode(admin, alsoWaited));
        String aloneNode = lockNode(admin, alone);
        String commands = "stranger-delete\n".repeat(5);

        new PartitionObserver(observerOptions(), new BufferedReader(new StringReader(commands)))
                .run(() -> Histories.countQuietly(dir.resolve("observer"), "stranger-delete") == 11);

        List<HistoryEvent> lines = History.read(dir.resolve("observer")).withF("stranger-delete").stream()
                .filter(line -> line.type() != Type.INVOKE)
                .toList();
        assertThat(lines.subList(0, 2))
                .extracting(HistoryEvent::type, HistoryEvent::value)
                .containsExactlyInAnyOrder(tuple(Type.OK, waitedNodes.get(1)), tuple(Type.OK, alsoWaitedNodes.get(1)));
        assertThat(lines.subList(2, 5))
                .extracting(HistoryEvent::type, HistoryEvent::value)
                .containsExactlyInAnyOrder(
                        tuple(Type.OK, waitedNodes.get(0)),
                        tuple(Type.OK, alsoWaitedNodes.get(0)),
                        tuple(Type.OK, aloneNode));
        assertThat(lines.get(5))
                .extracting(HistoryEvent::type, HistoryEvent::value)
                .containsExactly(Type.FAIL, "no lock node");
    }

    private ObserverOptions observerOptions() {
        return new ObserverOptions(
                zk.connectString(), dir.resolve("observer"), Duration.ZERO, dir.resolve("store"), Duration.ZERO, 0);
    }

    private static String lockNode(CuratorFramework client, String lockPath) throws Exception {
        return client.create()
                .creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(lockPath + "/lock-");
    }
}
