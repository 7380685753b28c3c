package dev.zklock.cli;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** Makes the Curator clients of the commands: started, connected within a time limit, or a clear failure. */
final class Clients {
    private Clients() {}

    /**
     * Returns a started client on {@code connectString} whose nodes carry {@code name} as data.
     *
     * @throws CommandFailure naming the connect string if no connection is made within {@code connectTimeoutMs}; the
     *     client is closed then
     */
    static CuratorFramework connect(String connectString, String name, int sessionTimeoutMs, int connectTimeoutMs)
            throws InterruptedException {
        return connect(connectString, name, sessionTimeoutMs, connectTimeoutMs, builder -> {});
    }

    /**
     * Returns a started client as {@link #connect(String, String, int, int)} does, after {@code customizer} has had
     * its say on the builder.
     *
     * @throws CommandFailure naming the connect string if no connection is made within {@code connectTimeoutMs}; the
     *     client is closed then
     */
    static CuratorFramework connect(
            String connectString,
            String name,
            int sessionTimeoutMs,
            int connectTimeoutMs,
            Consumer<CuratorFrameworkFactory.Builder> customizer)
            throws InterruptedException {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(connectTimeoutMs)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .defaultData(name.getBytes(StandardCharsets.UTF_8));
        customizer.accept(builder);
        CuratorFramework client = builder.build();
        client.start();
        boolean connected = false;
        try {
            connected = client.blockUntilConnected(connectTimeoutMs, TimeUnit.MILLISECONDS);
        } finally {
            if (!connected) {
                client.close();
            }
        }
        if (!connected) {
            throw new CommandFailure(
                    "cannot reach ZooKeeper at '" + connectString + "' within " + connectTimeoutMs + " ms");
        }
        return client;
    }
}
