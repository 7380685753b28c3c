package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.TcpProxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;

/**
 * A cut of one client's connection through its {@link TcpProxy}, its session kept: {@link #cut} holds the proxy's
 * requests and drops its connections, and returns once Curator says SUSPENDED; {@link #heal} lets them through again,
 * and returns once Curator says RECONNECTED. Each waits at most 30 s. Made before the cut, on the test's thread.
 */
final class ConnectionCut {
    private final TcpProxy proxy;
    private final CountDownLatch suspended = new CountDownLatch(1);
    private final CountDownLatch reconnected = new CountDownLatch(1);

    private ConnectionCut(TcpProxy proxy) {
        this.proxy = proxy;
    }

    /** Listens to {@code client}, whose connection goes through {@code proxy}. */
    static ConnectionCut of(CuratorFramework client, TcpProxy proxy) {
        ConnectionCut cut = new ConnectionCut(proxy);
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.SUSPENDED) {
                cut.suspended.countDown();
            } else if (state == ConnectionState.RECONNECTED) {
                cut.reconnected.countDown();
            }
        });
        return cut;
    }

    void cut() throws InterruptedException {
        proxy.holdRequests();
        proxy.dropConnections();
        assertThat(suspended.await(30, TimeUnit.SECONDS)).as("suspended").isTrue();
    }

    void heal() throws InterruptedException {
        proxy.resume();
        assertThat(reconnected.await(30, TimeUnit.SECONDS)).as("reconnected").isTrue();
    }
}
