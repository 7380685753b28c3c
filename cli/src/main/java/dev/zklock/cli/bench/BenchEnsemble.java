package dev.zklock.cli.bench;

import dev.zklock.cli.Clients;
import dev.zklock.cli.ConnectString;
import dev.zklock.recipes.test.EmbeddedZooKeeper;
import dev.zklock.recipes.test.ServerCounters;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;

/**
 * The ZooKeeper the bench measures on (an embedded server, an embedded ensemble, or a real one named by
 * {@code --connect}), the pool of clients the bench shares between zklock and Curator (client {@code i} is the same
 * session for both), the base path of the run, and the servers' request counters. Confined to the bench's thread,
 * except {@link #counters()}, which any thread may call.
 */
final class BenchEnsemble implements AutoCloseable {
    /** Long, so that idle clients of the pool ping rarely: their pings count as requests. */
    private static final int SESSION_TIMEOUT_MS = 30_000;

    private static final String ROOT = "/zklock-bench";

    private final AutoCloseable embedded;
    private final ServerReadings.Method counting;
    private final ConnectString connectString;
    private final String description;
    private final int connectTimeoutMs;
    private final String basePath = ROOT + "/" + UUID.randomUUID();
    private final List<CuratorFramework> clients = new ArrayList<>();

    private BenchEnsemble(
            AutoCloseable embedded,
            ServerReadings.Method counting,
            ConnectString connectString,
            String description,
            int connectTimeoutMs) {
        this.embedded = embedded;
        this.counting = counting;
        this.connectString = connectString;
        this.description = description;
        this.connectTimeoutMs = connectTimeoutMs;
    }

    /** Starts one embedded server that answers {@code mntr}. */
    static BenchEnsemble embeddedServer() throws Exception {
        System.setProperty(ServerCounters.FOUR_LETTER_WORDS, "*");
        TestingServer server = new TestingServer(true);
        return new BenchEnsemble(
                server,
                ServerReadings.Method.MNTR,
                ConnectString.parse(server.getConnectString()),
                "embedded ZooKeeper, 1 server",
                5_000);
    }

    /** Starts an embedded ensemble of {@code size} servers that answer {@code mntr}; clients spread over them. */
    static BenchEnsemble embeddedCluster(int size) throws Exception {
        System.setProperty(ServerCounters.FOUR_LETTER_WORDS, "*");
        TestingCluster cluster = new TestingCluster(EmbeddedZooKeeper.instanceSpecs(size));
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return new BenchEnsemble(
                cluster,
                ServerReadings.Method.STAT,
                ConnectString.parse(cluster.getConnectString()),
                "embedded ZooKeeper ensemble, " + size + " servers (TestingCluster)",
                10_000);
    }

    /** Uses the ensemble at {@code connectString}; the first client fails within the time limit if it is away. */
    static BenchEnsemble connect(ConnectString connectString, int connectTimeoutMs) throws InterruptedException {
        BenchEnsemble ensemble = new BenchEnsemble(
                null, ServerReadings.Method.MNTR, connectString, "ZooKeeper at " + connectString, connectTimeoutMs);
        ensemble.client(0);
        return ensemble;
    }

    /** Returns what the bench runs on, for the report. */
    String description() {
        return description;
    }

    /** Returns the connect string of the servers. */
    ConnectString connectString() {
        return connectString;
    }

    /** Returns how the servers' counters are read, for the report. */
    String counting() {
        return counting == ServerReadings.Method.MNTR ? "mntr" : "stat, server by server";
    }

    /** Returns the path under which this run makes its lock paths; deleted by {@link #close()}. */
    String basePath() {
        return basePath;
    }

    /**
     * Returns client {@code index} of the pool, connecting it (and those before it) if need be. Without Curator's
     * ensemble tracker: its read of the ensemble's configuration, sent in the background once the client has connected,
     * with a watch, would fall into the servers' counts, and could be in flight when a window is opened (a clean-clone
     * build of 48cfcf0 counted a reply in {@code ServerReadingsTest}'s window whose request came before it).
     */
    CuratorFramework client(int index) throws InterruptedException {
        while (clients.size() <= index) {
            clients.add(Clients.connect(
                    connectString.text(),
                    "bench-" + clients.size(),
                    SESSION_TIMEOUT_MS,
                    connectTimeoutMs,
                    builder -> builder.ensembleTracker(false)));
        }
        return clients.get(index);
    }

    /** Makes {@code path} and its parents as persistent nodes, so no container is made or reaped while measuring. */
    void makePath(String path) throws Exception {
        try {
            client(0).create().creatingParentsIfNeeded().forPath(path);
        } catch (KeeperException.NodeExistsException e) {
            // made by an earlier scenario
        }
    }

    /** Makes each of {@code paths} as {@link #makePath(String)} does. */
    void makePaths(List<String> paths) throws Exception {
        for (String path : paths) {
            makePath(path);
        }
    }

    /**
     * Reads the counters of every server, or returns empty if one cannot be asked (a real ensemble that does not allow
     * the {@code mntr} four-letter word).
     */
    Optional<ServerReadings> counters() {
        return ServerReadings.read(connectString.servers(), counting);
    }

    /**
     * Reads the counters of the sessions of {@code pooled} alone (clients of the pool), or returns empty if a server
     * cannot be asked: what those clients sent and were sent, without the pings of the pool's idle clients.
     */
    Optional<ServerReadings> counters(List<CuratorFramework> pooled) throws Exception {
        Set<Long> sessions = new HashSet<>();
        for (CuratorFramework client : pooled) {
            sessions.add(client.getZookeeperClient().getZooKeeper().getSessionId());
        }
        return ServerReadings.readSessions(connectString.servers(), sessions);
    }

    /**
     * Reads the counters of the sessions of {@code counted} alone, or of the whole server where {@code counted} is
     * empty or a server does not answer {@code cons}.
     */
    Optional<ServerReadings> countersOf(List<CuratorFramework> counted) throws Exception {
        Optional<ServerReadings> sessions = counted.isEmpty() ? Optional.empty() : counters(counted);
        return sessions.isPresent() ? sessions : counters();
    }

    @Override
    public void close() throws Exception {
        try {
            if (!clients.isEmpty()) {
                clients.get(0).delete().deletingChildrenIfNeeded().forPath(basePath);
                if (clients.get(0).getChildren().forPath(ROOT).isEmpty()) {
                    clients.get(0).delete().forPath(ROOT);
                }
            }
        } catch (KeeperException.NoNodeException | KeeperException.NotEmptyException e) {
            // nothing made, or another run is using the root
        } finally {
            clients.forEach(CuratorFramework::close);
            if (embedded != null) {
                embedded.close();
            }
        }
    }
}
