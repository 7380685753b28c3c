package dev.zklock.recipes.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;

/**
 * One client's own way to the servers: a {@link TcpProxy} to each server, so that one client's connection can go silent
 * ({@link Faults#silenceConnection}) while every other client's goes on. Point the client at {@link #connectString()}
 * instead of the servers', and build it with {@code ensembleTracker(false)} so that it keeps to them; it then moves
 * between servers as it would without the proxies.
 *
 * <pre>{@code
 * ClientProxies proxies = ClientProxies.to(servers);
 * CuratorFramework client = zk.newClient(
 *         builder -> builder.connectString(proxies.connectString()).ensembleTracker(false));
 * Faults.silenceConnection(client, proxies, 0.5, 0.5); // SUSPENDED, then RECONNECTED on the same session
 * }</pre>
 *
 * <p>Safe for use by multiple threads. {@link #close()} stops the proxies, and with them the client's connection.
 */
public final class ClientProxies implements AutoCloseable {
    private final List<TcpProxy> proxies;

    private ClientProxies(List<TcpProxy> proxies) {
        this.proxies = List.copyOf(proxies);
    }

    /**
     * Starts a proxy to every server of {@code servers}.
     *
     * @param servers the servers, running or not
     * @return the running proxies
     * @throws IOException if a local port cannot be opened (the proxies started so far are closed)
     */
    public static ClientProxies to(EmbeddedZooKeeper servers) throws IOException {
        Objects.requireNonNull(servers, "servers");
        List<TcpProxy> started = new ArrayList<>();
        try {
            for (int i = 0; i < servers.size(); i++) {
                started.add(TcpProxy.to(servers.port(i)));
            }
        } catch (IOException | RuntimeException e) {
            started.forEach(TcpProxy::close);
            throw e;
        }
        return new ClientProxies(started);
    }

    /**
     * Returns the connect string the client should use: one proxy per server, in the servers' order.
     *
     * @return {@code 127.0.0.1:<port>[,127.0.0.1:<port>...]}
     */
    public String connectString() {
        return proxies.stream().map(TcpProxy::connectString).collect(Collectors.joining(","));
    }

    /**
     * Holds back the bytes of both directions on every proxy until {@link #resume()}: the client's connection goes
     * silent, and so does any connection it opens meanwhile (its connect request waits in the proxy).
     */
    public void hold() {
        for (TcpProxy proxy : proxies) {
            proxy.holdRequests();
            proxy.holdReplies();
        }
    }

    /** Lets bytes flow both ways again on every proxy; bytes held back on a connection still open go on their way. */
    public void resume() {
        proxies.forEach(TcpProxy::resume);
    }

    /** Closes every connection through the proxies, losing whatever they held back; the client connects again. */
    public void dropConnections() {
        proxies.forEach(TcpProxy::dropConnections);
    }

    /**
     * Tells whether {@code client} is connected through one of these proxies now. A client that follows the ensemble's
     * configuration (Curator's ensemble tracker, on by default) leaves its proxies for the servers the configuration
     * names at its first reconnect: build proxied clients with {@code ensembleTracker(false)}.
     *
     * @param client a client
     * @return {@code true} if its connection goes through a proxy of this set
     */
    public boolean carries(CuratorFramework client) {
        return Sessions.remoteAddress(client)
                .filter(address -> proxies.stream().anyMatch(proxy -> proxy.port() == address.getPort()))
                .isPresent();
    }

    /**
     * Returns when the servers last heard from the client through these proxies.
     *
     * @return a {@link System#nanoTime()} reading
     */
    public long lastRequestNanos() {
        long last = Long.MIN_VALUE;
        for (TcpProxy proxy : proxies) {
            long one = proxy.lastRequestNanos();
            last = last == Long.MIN_VALUE || one - last > 0 ? one : last;
        }
        return last;
    }

    /** Stops every proxy and drops the client's connection. */
    @Override
    public void close() {
        proxies.forEach(TcpProxy::close);
    }

    @Override
    public String toString() {
        return "ClientProxies[" + connectString() + "]";
    }
}
