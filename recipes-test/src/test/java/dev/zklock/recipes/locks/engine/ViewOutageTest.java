package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A view's local answer that waited for a request the connection's drop failed ({@link ViewSession}, note 3), on a
 * real server through a TCP proxy. ZooKeeper's client fails the requests on their way before it tells the watchers
 * Disconnected, so an answer judged then on the view would say what the view held before the events the outage lost.
 */
@Timeout(60)
final class ViewOutageTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private TcpProxy proxy;
    private CuratorFramework proxied;
    private CuratorFramework direct;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        proxied = zk.newClient(builder -> builder.connectString(proxy.connectString()));
        direct = zk.newClient();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    /**
     * Actors: a view session through the proxy, and another client. Interleaving: the view is seeded (an empty queue);
     * the proxy holds every byte to the client; the other client creates a node (its event held); the view session
     * sends a sync and asks the view for a listing, which waits for the sync's reply; the proxy drops the connection,
     * so the sync fails. Allowed: the listing fails with the connection, or lists the node. Forbidden: the listing
     * answered from the view without the node (it failed before the client said Disconnected).
     */
    @Test
    void localListing_afterARequestTheDropFailed_isConnectionLossNotTheOldView() throws Exception {
        String path = zk.path("lock");
        direct.create().creatingParentsIfNeeded().forPath(path);
        SessionPort session = ClientContext.of(proxied).viewPort(null).current();
        assertThat(session.children(path).get(20, TimeUnit.SECONDS))
                .as("the first listing, which seeds the view")
                .isEqualTo(new Reply.Children(List.of()));

        proxy.holdReplies();
        direct.create().forPath(path + "/lock-0000000001");
        var sync = session.sync(path);
        var listing = session.children(path);
        assertThat(listing).as("a local answer waits for the sync's reply").isNotDone();
        proxy.dropConnections();
        proxy.resume();

        Reply answered = listing.get(20, TimeUnit.SECONDS);
        assertThat(sync.get(20, TimeUnit.SECONDS).code()).isEqualTo(Code.CONNECTIONLOSS);
        assertThat(answered.code() == Code.CONNECTIONLOSS
                        || (answered instanceof Reply.Children found
                                && found.children().contains("lock-0000000001")))
                .as("the listing answered %s", answered)
                .isTrue();
        await().until(() -> proxied.getZookeeperClient().isConnected());
        assertThat(session.children(path).get(20, TimeUnit.SECONDS))
                .as("after the reconnect, from the server")
                .isEqualTo(new Reply.Children(List.of("lock-0000000001")));
    }
}
