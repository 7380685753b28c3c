package dev.zklock.recipes.test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.DirectoryUtils;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.QuorumConfigBuilder;
import org.apache.curator.test.TestingZooKeeperServer;

/**
 * Real ZooKeeper servers in this JVM: one standalone server, or an ensemble of several ({@code curator-test}'s
 * {@link TestingZooKeeperServer}s, configured as {@code TestingCluster} configures them). Servers are known by their
 * index, from 0; each can be stopped and started again on the same port and data, so sessions outlive a restart that is
 * shorter than their timeout. {@link #leader()} asks the servers themselves (the {@code mntr} four-letter word) which
 * one leads.
 *
 * <p>Every server thread belongs to one thread group, {@link #isServerThread(Thread)} tells them apart from the
 * threads of the code under test, so leak checks can ignore what a server starts or stops (an election after a leader
 * is killed starts threads long after the call that killed it).
 *
 * <p>Safe for use by multiple threads: starts and stops run one at a time on a lifecycle thread of the server group.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final ThreadGroup SERVER_THREADS = new ThreadGroup("embedded-zookeeper");
    private static final Duration QUORUM_WAIT = Duration.ofSeconds(60);

    private final List<TestingZooKeeperServer> servers;
    private final Set<Integer> running = ConcurrentHashMap.newKeySet();
    private final ExecutorService lifecycle;

    private EmbeddedZooKeeper(int count, int tickTimeMs) throws Exception {
        lifecycle = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(SERVER_THREADS, runnable, "embedded-zookeeper-lifecycle");
            thread.setDaemon(true);
            return thread;
        });
        List<InstanceSpec> specs = instanceSpecs(count, tickTimeMs);
        QuorumConfigBuilder config = new QuorumConfigBuilder(specs);
        servers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            servers.add(new TestingZooKeeperServer(config, i));
        }
        try {
            for (int i = 0; i < count; i++) {
                start(i);
            }
            awaitQuorum();
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /**
     * Returns the specs of {@code count} servers whose client, election and quorum ports are all distinct. curator-test
     * picks each random port by opening and closing a socket, and the system can hand the same port out twice, which
     * makes a {@code TestingCluster} fail to start ("Multiple entries with same key").
     *
     * @param count how many servers
     * @return specs with distinct ports, server ids 1 to {@code count}, data deleted on close
     */
    public static List<InstanceSpec> instanceSpecs(int count) {
        return instanceSpecs(count, -1);
    }

    /**
     * As {@link #instanceSpecs(int)}, with a tick of {@code tickTimeMs} (-1 for curator-test's default, 1 s): the
     * server negotiates sessions from one tick up to a minute, and expires them on the tick's grain.
     */
    private static List<InstanceSpec> instanceSpecs(int count, int tickTimeMs) {
        Map<String, Object> sessionBounds = tickTimeMs > 0 ? Map.of("maxSessionTimeout", "60000") : Map.of();
        Set<Integer> ports = new java.util.HashSet<>();
        List<InstanceSpec> specs = new ArrayList<>();
        while (specs.size() < count) {
            InstanceSpec spec =
                    new InstanceSpec(null, -1, -1, -1, true, specs.size() + 1, tickTimeMs, -1, sessionBounds);
            if (ports.add(spec.getPort()) & ports.add(spec.getElectionPort()) & ports.add(spec.getQuorumPort())) {
                specs.add(spec);
            } else {
                try {
                    DirectoryUtils.deleteRecursively(spec.getDataDirectory());
                } catch (java.io.IOException e) {
                    // an empty temporary directory left behind: harmless
                }
            }
        }
        return specs;
    }

    /**
     * Starts one standalone server.
     *
     * @return the running server
     * @throws Exception if the server does not start
     */
    public static EmbeddedZooKeeper startServer() throws Exception {
        return new EmbeddedZooKeeper(1, -1);
    }

    /**
     * Starts one standalone server whose tick is {@code tickTime}: sessions as short as one tick may be negotiated (up
     * to a minute), and the server expires a session within one tick after its timeout, so tests of session expiry
     * can use sessions of a fraction of a second.
     *
     * @param tickTime the server's tick, at least 1 ms
     * @return the running server
     * @throws IllegalArgumentException if {@code tickTime} is shorter than 1 ms
     * @throws Exception if the server does not start
     */
    public static EmbeddedZooKeeper startServer(Duration tickTime) throws Exception {
        if (tickTime.toMillis() < 1) {
            throw new IllegalArgumentException("a server's tick must be at least 1 ms, not " + tickTime);
        }
        return new EmbeddedZooKeeper(1, Math.toIntExact(tickTime.toMillis()));
    }

    /**
     * Starts an ensemble of {@code count} servers and waits until it has a leader and every server serves.
     *
     * @param count the number of servers, at least 1 (1 makes a standalone server)
     * @return the running ensemble
     * @throws IllegalArgumentException if {@code count} is less than 1
     * @throws Exception if a server does not start
     */
    public static EmbeddedZooKeeper startEnsemble(int count) throws Exception {
        if (count < 1) {
            throw new IllegalArgumentException("an ensemble needs at least 1 server, not " + count);
        }
        return new EmbeddedZooKeeper(count, -1);
    }

    /**
     * Tells whether {@code thread} was started by one of these servers (or by the lifecycle thread that starts them).
     *
     * @param thread any thread
     * @return {@code true} if the thread belongs to an embedded server
     */
    public static boolean isServerThread(Thread thread) {
        ThreadGroup group = thread.getThreadGroup();
        return group != null && (group == SERVER_THREADS || SERVER_THREADS.parentOf(group));
    }

    /**
     * Returns the connect string of all servers, running or not.
     *
     * @return {@code host:port[,host:port...]}
     */
    public String connectString() {
        return servers.stream()
                .map(server -> server.getInstanceSpec().getConnectString())
                .collect(Collectors.joining(","));
    }

    /**
     * Returns the connect string of one server.
     *
     * @param server the server's index
     * @return {@code host:port}
     */
    public String connectString(int server) {
        return servers.get(checkIndex(server)).getInstanceSpec().getConnectString();
    }

    /**
     * Returns the number of servers.
     *
     * @return 1 for a standalone server
     */
    public int size() {
        return servers.size();
    }

    /**
     * Tells whether the server was started and not stopped since.
     *
     * @param server the server's index
     * @return {@code true} if it runs
     */
    public boolean isRunning(int server) {
        return running.contains(checkIndex(server));
    }

    /**
     * Stops one server, as a crash would for its clients: their connections drop and they move to another server. Does
     * nothing if it is stopped already.
     *
     * @param server the server's index
     * @throws IOException if the server does not stop cleanly
     */
    public synchronized void stop(int server) throws IOException {
        if (!running.remove(checkIndex(server))) {
            return;
        }
        onLifecycleThread(() -> {
            servers.get(server).stop();
            return null;
        });
    }

    /**
     * Starts a stopped server again on the same ports and data and, if a majority of the servers now runs, waits until
     * it serves (an ensemble member serves once it has joined the quorum). Does nothing if it runs.
     *
     * @param server the server's index
     * @throws Exception if it does not start, or does not serve within a minute
     */
    public synchronized void restart(int server) throws Exception {
        if (isRunning(server)) {
            return;
        }
        start(server);
        if (quorumIsUp()) {
            awaitServing(server);
        }
    }

    /**
     * Stops every server.
     *
     * @throws IOException if a server does not stop cleanly
     */
    public synchronized void stopAll() throws IOException {
        for (int i = 0; i < servers.size(); i++) {
            stop(i);
        }
    }

    /**
     * Starts every stopped server and waits until the ensemble has a leader and every server serves.
     *
     * @throws Exception if a server does not start, or the ensemble does not form within a minute
     */
    public synchronized void restartStopped() throws Exception {
        for (int i = 0; i < servers.size(); i++) {
            if (!isRunning(i)) {
                start(i);
            }
        }
        awaitQuorum();
    }

    /**
     * Returns the index of the server that leads the ensemble now, waiting up to a minute for an election to end. A
     * standalone server is its own leader.
     *
     * @return the leader's index
     * @throws IllegalStateException if no server leads within a minute
     */
    public int leader() {
        try {
            return Poll.until(QUORUM_WAIT, this::currentLeader)
                    .orElseThrow(() -> new IllegalStateException(
                            "no server of " + connectString() + " leads after " + QUORUM_WAIT));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a leader among " + connectString(), e);
        }
    }

    /**
     * Returns the index of a running server that does not lead, if there is one.
     *
     * @return a follower's index, or empty for a standalone server or when only the leader runs
     */
    public Optional<Integer> follower() {
        int leader = leader();
        return IntStream.range(0, servers.size())
                .filter(i -> i != leader && isRunning(i))
                .boxed()
                .findFirst();
    }

    /**
     * Returns the index of the server {@code client} is connected to now.
     *
     * @param client a client of these servers
     * @return the server's index, or empty if the client is not connected
     */
    public Optional<Integer> serverOf(CuratorFramework client) {
        return Sessions.remoteAddress(client).flatMap(address -> IntStream.range(0, servers.size())
                .filter(i -> servers.get(i).getInstanceSpec().getPort() == address.getPort())
                .boxed()
                .findFirst());
    }

    /**
     * Returns the request counters of one server once they have settled ({@link ServerCounters#settled}); see {@link
     * ServerCounters} for what they count.
     *
     * @param server the server's index
     * @return a reading of its counters
     * @throws IllegalStateException if the server does not serve
     */
    public ServerCounters counters(int server) {
        return ServerCounters.settled("127.0.0.1", port(server));
    }

    /**
     * Returns the client port of one server.
     *
     * @param server the server's index
     * @return the port
     */
    public int port(int server) {
        return servers.get(checkIndex(server)).getInstanceSpec().getPort();
    }

    /** Stops every server and deletes its data. */
    @Override
    public synchronized void close() {
        try {
            onLifecycleThread(() -> {
                for (TestingZooKeeperServer server : servers) {
                    server.close();
                }
                return null;
            });
        } catch (IOException e) {
            throw new IllegalStateException("cannot close the servers at " + connectString(), e);
        } finally {
            lifecycle.shutdown();
        }
    }

    @Override
    public String toString() {
        return "EmbeddedZooKeeper[" + connectString() + "]";
    }

    private void start(int server) throws IOException {
        onLifecycleThread(() -> {
            TestingZooKeeperServer one = servers.get(server);
            one.restart(); // starts a server that never ran as well as one that was stopped
            return null;
        });
        running.add(server);
    }

    private boolean quorumIsUp() {
        return running.size() > servers.size() / 2;
    }

    private void awaitQuorum() throws InterruptedException {
        leader();
        for (int i = 0; i < servers.size(); i++) {
            if (isRunning(i)) {
                awaitServing(i);
            }
        }
    }

    private void awaitServing(int server) throws InterruptedException {
        Poll.until(QUORUM_WAIT, () -> Mntr.serverState("127.0.0.1", port(server)))
                .orElseThrow(() -> new IllegalStateException(
                        "server " + server + " at " + connectString(server) + " does not serve after " + QUORUM_WAIT));
    }

    private Optional<Integer> currentLeader() {
        for (int i = 0; i < servers.size(); i++) {
            if (isRunning(i)) {
                Optional<String> state = Mntr.serverState("127.0.0.1", port(i));
                if (state.filter(s -> s.equals("leader") || s.equals("standalone"))
                        .isPresent()) {
                    return Optional.of(i);
                }
            }
        }
        return Optional.empty();
    }

    private int checkIndex(int server) {
        if (server < 0 || server >= servers.size()) {
            throw new IllegalArgumentException(
                    "no server " + server + " in an ensemble of " + servers.size() + " (indexes start at 0)");
        }
        return server;
    }

    private void onLifecycleThread(Callable<Void> action) throws IOException {
        try {
            lifecycle.submit(action).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting or stopping a server", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("cannot start or stop a server at " + connectString(), cause);
        }
    }
}
