package dev.zklock.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import picocli.CommandLine.ParameterException;

/**
 * The ZooKeeper a command talks to: an embedded server started for the run, or the ensemble named by
 * {@code --connect}; and the clients made on it, all closed with it. Confined to the command's thread.
 */
final class Ensemble implements AutoCloseable {
    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final int CONNECTION_TIMEOUT_MS = 5_000;

    private final TestingServer server;
    private final String connectString;
    private final List<CuratorFramework> clients = new ArrayList<>();

    private Ensemble(TestingServer server, String connectString) {
        this.server = server;
        this.connectString = connectString;
    }

    /** Starts an embedded server, or checks the connect string of the ensemble to use. */
    static Ensemble open(String connect, picocli.CommandLine commandLine, PrintWriter out) throws Exception {
        if (connect == null) {
            TestingServer server = new TestingServer(true);
            out.printf("ZooKeeper: embedded server on %s%n", server.getConnectString());
            return new Ensemble(server, server.getConnectString());
        }
        if (!connect.matches("[\\w.\\-\\[\\]:]+(,[\\w.\\-\\[\\]:]+)*(/[\\w./\\-]*)?")) {
            throw new ParameterException(
                    commandLine, "malformed connect string '" + connect + "': expected host:port[,host:port...]");
        }
        out.printf("ZooKeeper: %s%n", connect);
        return new Ensemble(null, connect);
    }

    String connectString() {
        return connectString;
    }

    /** Returns a started client whose nodes carry {@code name} as data; fails if it cannot connect in time. */
    CuratorFramework newClient(String name) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .defaultData(name.getBytes(StandardCharsets.UTF_8))
                .build();
        clients.add(client);
        client.start();
        if (!client.blockUntilConnected(CONNECTION_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(
                    "cannot reach ZooKeeper at " + connectString + " within " + CONNECTION_TIMEOUT_MS + " ms");
        }
        return client;
    }

    int sessionTimeoutMs() {
        return SESSION_TIMEOUT_MS;
    }

    @Override
    public void close() throws Exception {
        for (CuratorFramework client : clients) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
