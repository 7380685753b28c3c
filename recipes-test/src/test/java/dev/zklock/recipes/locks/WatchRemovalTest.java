package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.ZooKeeperHandle;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A watch removal sent as the connection fails must not hide the outage from Curator. ZooKeeper's client queues the
 * event of a local removal that failed with the connection as a Disconnected event, and its event thread then drops the
 * real Disconnected event as a repeat: Curator reports neither SUSPENDED nor RECONNECTED, and no hold of the client goes
 * IN_DOUBT. An acquire that gives up during a network partition sends such a removal. Outcome table: a watch is set, its
 * removal is held by a proxy, the connection drops, then comes back. Allowed: SUSPENDED, then RECONNECTED on the same
 * session, and the removal sent again and done (no watch left). Forbidden: no SUSPENDED (the outage unseen).
 */
@Timeout(60)
final class WatchRemovalTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void removeWatch_failingWithTheConnection_hidesNoOutageAndIsSentAgainOnceConnected() throws Exception {
        TcpProxy proxy = zk.newProxy();
        try {
            CuratorFramework client = zk.newClient(builder -> builder.connectString(proxy.connectString()));
            List<ConnectionState> states = new CopyOnWriteArrayList<>();
            client.getConnectionStateListenable().addListener((c, state) -> states.add(state));
            client.create().forPath(zk.path("watched"));
            LockPath path = new LockPath(client, zk.path("lock"), "lock-", LockDriver.exclusive(), null);
            ZooKeeperHandle session = ZooKeeperHandle.current(client);
            String watched = path.fixed(zk.path("watched"));
            Watcher watcher = event -> {};
            assertThat(session.watchData(watched, watcher).join().isOk()).isTrue();

            proxy.holdRequests();
            path.removeWatch(session, watched, watcher, false);
            proxy.dropConnections();
            await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.SUSPENDED));
            proxy.resume();
            await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.RECONNECTED));

            assertThat(states).containsSubsequence(ConnectionState.SUSPENDED, ConnectionState.RECONNECTED);
            assertThat(ZooKeeperHandle.current(client).sessionId()).isEqualTo(session.sessionId());
            await().atMost(Duration.ofSeconds(10)).until(() -> !WatchersDebug.getDataWatches(
                            client.getZookeeperClient().getZooKeeper())
                    .contains(watched)); // the removal, sent again once connected
        } finally {
            proxy.close();
        }
    }
}
