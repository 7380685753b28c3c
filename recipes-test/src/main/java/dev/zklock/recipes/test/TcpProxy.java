package dev.zklock.recipes.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy between ZooKeeper clients and one server, for faults at an exact moment: hold back the bytes of one
 * direction, then drop every connection, so that a request reaches the server but its reply never reaches the client
 * (or never reaches the server at all). Point a client at {@link #connectString()} instead of the server. It also counts
 * round trips ({@link #requestBursts()}), to tell requests sent back to back from requests that wait for a reply, and the
 * bytes the server sends ({@link #bytesToClients()}).
 *
 * <p>Safe for use by multiple threads. Each connection runs two daemon pump threads; {@link #close()} stops all.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Gate toServer = new Gate();
    private final Gate toClient = new Gate();
    private volatile long lastRequestNanos = System.nanoTime();
    private final AtomicLong requestBursts = new AtomicLong();
    private final AtomicLong bytesToClients = new AtomicLong();
    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Starts a proxy to the server at {@code 127.0.0.1:port}.
     *
     * @param port the server's client port
     * @return a running proxy
     * @throws IOException if no local port can be opened
     */
    public static TcpProxy to(int port) throws IOException {
        return new TcpProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    /**
     * Returns the address clients should connect to.
     *
     * @return {@code 127.0.0.1:<proxy port>}
     */
    public String connectString() {
        return "127.0.0.1:" + port();
    }

    /**
     * Returns the local port the proxy listens on.
     *
     * @return the port of {@link #connectString()}
     */
    public int port() {
        return listener.getLocalPort();
    }

    /** Holds back bytes from clients to the server until {@link #resume()}; they are lost if connections drop first. */
    public void holdRequests() {
        toServer.close();
    }

    /** Holds back bytes from the server to clients until {@link #resume()}; they are lost if connections drop first. */
    public void holdReplies() {
        toClient.close();
    }

    /**
     * Returns when bytes last reached the server through this proxy: the last time the server heard from its clients,
     * which is what keeps their sessions alive on the server.
     *
     * @return a {@link System#nanoTime()} reading; the proxy's start if nothing has passed yet
     */
    public long lastRequestNanos() {
        return lastRequestNanos;
    }

    /**
     * Returns how many bursts of requests clients have sent through this proxy: bytes to the server that came first on
     * their connection, or after bytes from the server. Requests sent back to back, without waiting for a reply between
     * them, are one burst, one round trip; a request sent after the reply to the one before starts a new burst. Count
     * over a quiet stretch (a client with nothing in flight, no ping due) to count one operation's round trips.
     *
     * @return the number of bursts since the proxy started
     */
    public long requestBursts() {
        return requestBursts.get();
    }

    /**
     * Returns how many bytes the server has sent to clients through this proxy: replies and watch events, what clients
     * read (a listing of N children costs about N names).
     *
     * @return the bytes passed from the server to clients since the proxy started
     */
    public long bytesToClients() {
        return bytesToClients.get();
    }

    /** Lets bytes flow both ways again. */
    public void resume() {
        toServer.open();
        toClient.open();
    }

    /** Closes every proxied connection, losing whatever was held back; clients reconnect through the proxy. */
    public void dropConnections() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        resume();
        dropConnections();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                AtomicBoolean serverSpokeLast = new AtomicBoolean(true); // this connection's: a new burst is due
                pump(client, server, toServer, serverSpokeLast);
                pump(server, client, toClient, serverSpokeLast);
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    /**
     * Copies bytes from {@code from} to {@code to} while {@code gate} lets them pass; to the server when {@code from} is
     * the client, counting a burst each time the client speaks after the server did ({@code serverSpokeLast}).
     */
    private void pump(Socket from, Socket to, Gate gate, AtomicBoolean serverSpokeLast) {
        boolean toTheServer = gate == toServer;
        Thread thread = new Thread(
                () -> {
                    byte[] buffer = new byte[64 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int read;
                        while ((read = in.read(buffer)) >= 0) {
                            gate.pass();
                            if (from.isClosed() || to.isClosed()) {
                                return;
                            }
                            if (toTheServer && serverSpokeLast.compareAndSet(true, false)) {
                                requestBursts.incrementAndGet();
                            } else if (!toTheServer) {
                                serverSpokeLast.set(true);
                                bytesToClients.addAndGet(read);
                            }
                            out.write(buffer, 0, read);
                            out.flush();
                            if (toTheServer) {
                                lastRequestNanos = System.nanoTime();
                            }
                        }
                    } catch (IOException | InterruptedException e) {
                        // the connection was dropped: the other pump notices too
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-" + (toTheServer ? "up" : "down") + "-" + from.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing is best effort
        }
    }

    /** A gate that pumps pass while open and wait at while closed. */
    private static final class Gate {
        private boolean open = true;

        synchronized void close() {
            open = false;
        }

        synchronized void open() {
            open = true;
            notifyAll();
        }

        synchronized void pass() throws InterruptedException {
            while (!open) {
                wait();
            }
        }
    }
}
