package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sweep for a create whose reply was lost outlives the outage that lost it: a node that stays would stand at the
 * head of the queue, held by nobody, until its session ended (a partition run saw a lock path stall for 200 s so).
 */
@Timeout(60)
final class LostCreateSweepTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final String PREFIX = "_c_5c3e4b6a-9d1f-4e2a-8b7c-0123456789ab-lock-";

    private TcpProxy proxy;
    private CuratorFramework proxied;
    private CuratorFramework observer;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        // No retries of Curator's own: what a client whose retry policy gives up during an outage does.
        proxied = zk.newClient(builder -> builder.connectString(proxy.connectString())
                .sessionTimeoutMs(4_000)
                .retryPolicy(new RetryNTimes(0, 0)));
        observer = zk.newClient();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    @Test
    void sweepInBackground_whenItsListingFailsWithTheConnection_deletesTheNodeOnceTheConnectionIsBack()
            throws Exception {
        LockPath lock = new LockPath(proxied, zk.path("lock"), "lock-", LockDriver.exclusive(), null);
        String node = proxied.create()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(zk.path("lock") + "/" + PREFIX);
        CountDownLatch suspended = new CountDownLatch(1);
        proxied.getConnectionStateListenable().addListener((client, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                suspended.countDown();
            }
        });
        proxy.holdReplies(); // the listing reaches the server; its reply never comes, and the connection goes

        NodeDeletes.sweepInBackground(lock, PREFIX);

        // ZooKeeper's client fails the listing with CONNECTIONLOSS before it tells of the disconnect.
        assertThat(suspended.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(children())
                .as("the node stands while the connection is down")
                .contains(nodeName(node));
        proxy.resume(); // the same session comes back

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(children())
                .as("swept on the session that made it")
                .isEmpty());
    }

    private List<String> children() throws Exception {
        try {
            return observer.getChildren().forPath(zk.path("lock"));
        } catch (KeeperException.NoNodeException reaped) {
            return List.of(); // the empty container went too
        }
    }

    private static String nodeName(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
