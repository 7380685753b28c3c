package dev.zklock.cli.demo;

import dev.zklock.cli.Clients;
import dev.zklock.cli.ConnectString;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
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
        try {
            ConnectString.parse(connect);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, e.getMessage());
        }
        out.printf("ZooKeeper: %s%n", connect);
        return new Ensemble(null, connect);
    }

    String connectString() {
        return connectString;
    }

    /** Returns a started client whose nodes carry {@code name} as data; fails if it cannot connect in time. */
    CuratorFramework newClient(String name) throws InterruptedException {
        CuratorFramework client = Clients.connect(connectString, name, SESSION_TIMEOUT_MS, CONNECTION_TIMEOUT_MS);
        clients.add(client);
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
