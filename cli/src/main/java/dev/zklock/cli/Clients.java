package dev.zklock.cli;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Makes the Curator clients of the commands: started, connected within a time limit, or a clear failure.
 *
 * <p>Stateless: safe for use by any thread. ZooKeeper cost: a connect opens a session (one connection handshake), and
 * makes no request of its own.
 */
public final class Clients {
    private Clients() {}

    /**
     * Returns a started client on {@code connectString} whose nodes carry {@code name} as data.
     *
     * @param connectString the servers to connect to
     * @param name the data of the nodes the client creates, which tells the readers of a queue who made them
     * @param sessionTimeoutMs the session timeout the client asks for
     * @param connectTimeoutMs how long to wait for the first connection
     * @return the client, connected; the caller closes it
     * @throws CommandFailure naming the connect string if no connection is made within {@code connectTimeoutMs}; the
     *     client is closed then
     * @throws InterruptedException if the calling thread is interrupted while it waits for the connection
     */
    public static CuratorFramework connect(
            String connectString, String name, int sessionTimeoutMs, int connectTimeoutMs) throws InterruptedException {
        return connect(connectString, name, sessionTimeoutMs, connectTimeoutMs, builder -> {});
    }

    /**
     * Returns a started client as {@link #connect(String, String, int, int)} does, after {@code customizer} has had
     * its say on the builder.
     *
     * @param connectString the servers to connect to
     * @param name the data of the nodes the client creates, which tells the readers of a queue who made them
     * @param sessionTimeoutMs the session timeout the client asks for
     * @param connectTimeoutMs how long to wait for the first connection
     * @param customizer changes the builder before the client is built
     * @return the client, connected; the caller closes it
     * @throws CommandFailure naming the connect string if no connection is made within {@code connectTimeoutMs}; the
     *     client is closed then
     * @throws InterruptedException if the calling thread is interrupted while it waits for the connection
     */
    public static CuratorFramework connect(
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
