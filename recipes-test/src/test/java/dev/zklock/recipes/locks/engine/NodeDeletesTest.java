package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A delete whose reply is late is sent once: the thread that waited for it goes on at its bound, and the delete on its
 * way decides what follows. It is handed to Curator's guaranteed delete only if the connection is lost before its reply
 * (a drain of 100,000 virtual threads on 10,000 keys of one client sent about 13,500 deletes twice when a late reply
 * sent the second at once).
 */
@Timeout(60)
final class NodeDeletesTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final long BOUND_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    private TcpProxy proxy;
    private CuratorFramework proxied;
    private CuratorFramework observer;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        // A session long enough that holding replies for the test's second or two drops no connection.
        proxied = zk.newClient(
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(30_000));
        observer = zk.newClient();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    @Test
    void deleteNow_replyLaterThanItsBound_returnsAtTheBoundAndSendsTheDeleteOnce() throws Exception {
        LockPath lock = new LockPath(proxied, zk.path("lock"), "lock-", LockDriver.exclusive(), null);
        String node = newNode();
        CountDownLatch deleted = new CountDownLatch(1);
        observer.checkExists()
                .usingWatcher((Watcher) event -> {
                    if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                        deleted.countDown();
                    }
                })
                .forPath(node);
        ServerCounters before = zk.counters();
        proxy.holdReplies(); // the delete reaches the server; its reply waits in the proxy

        boolean gone = NodeDeletes.deleteNow(lock, node, Parking.nanoTime() + BOUND_NANOS);

        assertThat(gone).as("the reply did not come by the bound").isFalse();
        assertThat(deleted.await(10, TimeUnit.SECONDS))
                .as("deleted by the delete sent")
                .isTrue();
        proxy.resume();
        ServerCounters after = zk.counters();
        assertThat(after.requestsSince(before)).as("the delete, sent once").isEqualTo(1);
    }

    @Test
    void deleteNow_connectionLostBeforeTheLateReply_handsTheDeleteToTheBackground() throws Exception {
        LockPath lock = new LockPath(proxied, zk.path("lock"), "lock-", LockDriver.exclusive(), null);
        String node = newNode();
        long session = proxied.getZookeeperClient().getZooKeeper().getSessionId();
        CountDownLatch reconnected = new CountDownLatch(1);
        proxied.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.RECONNECTED) {
                reconnected.countDown();
            }
        });
        proxy.holdRequests(); // the delete never reaches the server

        boolean gone = NodeDeletes.deleteNow(lock, node, Parking.nanoTime() + BOUND_NANOS);
        assertThat(gone).isFalse();
        assertThat(observer.checkExists().forPath(node)).as("not deleted yet").isNotNull();
        proxy.dropConnections(); // the delete on its way fails with the connection
        proxy.resume();

        assertThat(reconnected.await(20, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(observer.checkExists().forPath(node))
                        .as("deleted in the background once the connection is back")
                        .isNull());
        assertThat(proxied.getZookeeperClient().getZooKeeper().getSessionId())
                .as("by a delete, not by the end of its session")
                .isEqualTo(session);
    }

    private String newNode() throws Exception {
        return proxied.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(zk.path("lock") + "/_c_5c3e4b6a-9d1f-4e2a-8b7c-0123456789ab-lock-");
    }
}
