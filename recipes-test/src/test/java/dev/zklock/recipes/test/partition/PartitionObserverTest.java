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
 * The observer's stranger against a real server. (What the observer sees of the clients' sessions is in
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

        new PartitionObserver(
                        new ObserverOptions(
                                zk.connectString(),
                                dir.resolve("observer"),
                                Duration.ZERO,
                                dir.resolve("store"),
                                Duration.ZERO),
                        new BufferedReader(new StringReader(commands)))
                .run(() -> Histories.countQuietly(dir.resolve("observer"), "stranger-delete") == 2);

        List<HistoryEvent> lines = History.read(dir.resolve("observer")).withF("stranger-delete");
        assertThat(lines)
                .extracting(HistoryEvent::process, HistoryEvent::type, HistoryEvent::key)
                .containsExactly(
                        tuple("stranger", Type.INFO, lockPath), tuple("stranger", Type.FAIL, zk.path("nothing")));
        assertThat(lines.get(0).value()).isEqualTo(nodes.get(1));
        assertThat(admin.getChildren().forPath(lockPath)).hasSize(2);
    }
}
