package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs real ZooKeeper per test class, one standalone server ({@link #server()}) or an
 * ensemble of several ({@link #ensemble(int)}), hands each test fresh clients and a base path of its own, and checks
 * after every test that nothing leaked.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ZooKeeperExtension zk = ZooKeeperExtension.server();
 *
 * @Test
 * void acquire_whenFree_holds() throws Exception {
 *     ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
 *     ...
 * }
 * }</pre>
 *
 * <p>After each test the extension fails it if a lock node (a protected {@code _c_} node) made by one of the test's
 * sessions is still in the tree, if one of the test's clients still has a watch registered, or if the test left a
 * non-daemon thread running (the servers' own threads aside); then it closes the test's clients and starts again any
 * server the test stopped. Faults are real: {@link #expireSession} ends a session on the server,
 * {@link #dropConnection} closes a client's TCP connection, {@link #stopServer()} and {@link #restartServer()} stop and
 * start every server, and in an ensemble {@link #killLeader()}, {@link #killFollower()}, {@link #stopServer(int)} and
 * {@link #restartServer(int)} take single servers down and up.
 *
 * <p>Register it in a {@code static} field. Its methods are safe to call from the test's actors as well as the test
 * thread.
 */
public final class ZooKeeperExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private static final String ROOT = "/zklock-test";

    private final List<CuratorFramework> clients = new CopyOnWriteArrayList<>();
    private final Set<Long> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger testCounter = new AtomicInteger();
    private final int serverCount;
    private final int sessionTimeoutMs;
    private final int connectionTimeoutMs;
    private final Duration tickTime; // null: curator-test's default tick
    private EmbeddedZooKeeper servers;
    private CuratorFramework admin;
    private volatile String basePath;
    private volatile Set<Thread> threadsBefore = Set.of();

    private ZooKeeperExtension(int serverCount, int sessionTimeoutMs, int connectionTimeoutMs, Duration tickTime) {
        this.serverCount = serverCount;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.connectionTimeoutMs = connectionTimeoutMs;
        this.tickTime = tickTime;
    }

    /**
     * Returns an extension with one standalone server per test class; clients get a 10 s session and a 5 s connection
     * timeout.
     *
     * @return a new extension
     */
    public static ZooKeeperExtension server() {
        return new ZooKeeperExtension(1, 10_000, 5_000, null);
    }

    /**
     * Returns an extension with one standalone server per test class whose tick is {@code tickTime}, for tests of
     * session expiry with short sessions: a client may ask for a session of one tick or more (see
     * {@link #newClient(Consumer)}), and the server expires a session within one tick after its timeout. Clients get a
     * 10 s session and a 5 s connection timeout unless they ask otherwise.
     *
     * @param tickTime the server's tick, at least 1 ms
     * @return a new extension
     * @throws IllegalArgumentException if {@code tickTime} is shorter than 1 ms
     */
    public static ZooKeeperExtension serverWithTick(Duration tickTime) {
        if (tickTime.toMillis() < 1) {
            throw new IllegalArgumentException("a server's tick must be at least 1 ms, not " + tickTime);
        }
        return new ZooKeeperExtension(1, 10_000, 5_000, tickTime);
    }

    /**
     * Returns an extension with an ensemble of {@code servers} real servers per test class (3 start in about 1.5 s);
     * clients know every server, get a 10 s session and a 5 s connection timeout, and move to another server when
     * theirs goes down.
     *
     * @param servers the number of servers, at least 1
     * @return a new extension
     * @throws IllegalArgumentException if {@code servers} is less than 1
     */
    public static ZooKeeperExtension ensemble(int servers) {
        if (servers < 1) {
            throw new IllegalArgumentException("an ensemble needs at least 1 server, not " + servers);
        }
        return new ZooKeeperExtension(servers, 10_000, 5_000, null);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        System.setProperty(ServerCounters.FOUR_LETTER_WORDS, "*");
        System.setProperty("znode.container.checkIntervalMs", "100");
        servers = tickTime == null
                ? EmbeddedZooKeeper.startEnsemble(serverCount)
                : EmbeddedZooKeeper.startServer(tickTime);
        admin = builder().build();
        admin.start();
        awaitConnected(admin);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (admin != null) {
            admin.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        String test = context.getRequiredTestClass().getSimpleName() + "/"
                + context.getRequiredTestMethod().getName() + "-" + testCounter.incrementAndGet();
        basePath = ROOT + "/" + test;
        // Persistent and open to all, so that neither the container reaper nor a test's restrictive ACL provider
        // can change what the next test finds above its base path.
        admin.create().creatingParentsIfNeeded().forPath(basePath);
        threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            servers.restartStopped();
            LeakChecks.assertNoLockNodes(servers.connectString(), sessions);
            for (CuratorFramework client : clients) {
                LeakChecks.assertNoWatches(client);
            }
        } finally {
            clients.forEach(CuratorFramework::close);
            clients.clear();
            sessions.clear();
        }
        LeakChecks.assertNoNewNonDaemonThreads(threadsBefore);
    }

    /**
     * Returns a started client connected to the server, closed after the test.
     *
     * @return a connected client
     */
    public CuratorFramework newClient() {
        return newClient(builder -> {});
    }

    /**
     * Returns a started client connected to the server, after {@code customizer} has had its say on the builder
     * (namespace, ACL provider, authorization, timeouts); closed after the test.
     *
     * @param customizer changes to the default builder
     * @return a connected client
     */
    public CuratorFramework newClient(Consumer<CuratorFrameworkFactory.Builder> customizer) {
        CuratorFramework client = startedClient(customizer);
        clients.add(client);
        awaitConnected(client);
        return client;
    }

    /**
     * Returns a client that was built but never started, for tests of bad input; closed after the test.
     *
     * @return an unstarted client
     */
    public CuratorFramework newUnstartedClient() {
        CuratorFramework client = builder().build();
        clients.add(client);
        return client;
    }

    /**
     * Returns the base path of the current test: a path no other test uses.
     *
     * @return an absolute path
     */
    public String basePath() {
        return Objects.requireNonNull(basePath, "basePath is only known while a test runs");
    }

    /**
     * Returns {@code name} under the current test's base path.
     *
     * @param name a relative name, such as {@code "lock"}
     * @return an absolute path
     */
    public String path(String name) {
        return basePath() + "/" + name;
    }

    /**
     * Returns the connect string of the server, or of every server of the ensemble.
     *
     * @return {@code host:port[,host:port...]}
     */
    public String connectString() {
        return servers.connectString();
    }

    /**
     * Returns the request counters of the server; only for a single server, since each server counts its own.
     *
     * @return a reading of the counters
     * @throws IllegalStateException in ensemble mode: use {@link #servers()}{@code .counters(index)}
     */
    public ServerCounters counters() {
        if (servers.size() != 1) {
            throw new IllegalStateException(
                    "counters() reads a single server; in an ensemble of " + servers.size() + " read one server");
        }
        return servers.counters(0);
    }

    /**
     * Starts a TCP proxy to the server, for a client whose connection a test holds back, cuts or drops ({@link
     * TcpProxy}); the caller closes it.
     *
     * @return the proxy, listening
     * @throws IllegalStateException in ensemble mode: use {@link #servers()}{@code .port(index)}
     * @throws IOException if it cannot listen
     */
    public TcpProxy newProxy() throws IOException {
        if (servers.size() != 1) {
            throw new IllegalStateException(
                    "newProxy() fronts a single server; in an ensemble of " + servers.size() + " front one server");
        }
        return TcpProxy.to(servers.port(0));
    }

    /**
     * Returns the servers, for faults and questions this extension has no shortcut for.
     *
     * @return the running servers of this test class
     */
    public EmbeddedZooKeeper servers() {
        return servers;
    }

    /**
     * Ends the client's current session on the server, for real: a second handle opened on the same session is
     * closed, so the server deletes the session's ephemeral nodes at once. The client hears of it when it next talks
     * to the server, and Curator opens a new session.
     *
     * @param client a client made by this extension
     */
    public void expireSession(CuratorFramework client) {
        Faults.expireSession(client, connectString(), sessionTimeoutMs);
    }

    /**
     * Kills the client's current session on the client's side, as Curator's {@code KillSession} does: ZooKeeper's
     * client sees Expired at once and stops talking on that session, and Curator opens a new one. The server keeps the
     * old session, and its ephemeral nodes, until the session times out (unless Curator's reconnect closes it first,
     * about one time in twenty). See {@link Faults#killSession}.
     *
     * @param client a client made by this extension
     */
    public void killSession(CuratorFramework client) {
        Faults.killSession(client);
    }

    /**
     * Closes the client's TCP connection, for real; the session lives on and the client connects again, in an ensemble
     * possibly to another server. See {@link Faults#dropConnection}.
     *
     * @param client a client made by this extension
     */
    public void dropConnection(CuratorFramework client) {
        Faults.dropConnection(client);
    }

    /**
     * Stops every server; every client loses its connection. The servers are started again after the test if need be.
     *
     * @throws IOException if a server does not stop
     */
    public void stopServer() throws IOException {
        servers.stopAll();
    }

    /**
     * Starts every stopped server again on the same port and data, so sessions that have not timed out survive, and
     * waits until they serve.
     *
     * @throws Exception if a server does not start
     */
    public void restartServer() throws Exception {
        servers.restartStopped();
    }

    /**
     * Stops one server of the ensemble; its clients move to another server. Started again after the test if need be.
     *
     * @param server the server's index, from 0
     * @throws IOException if the server does not stop
     */
    public void stopServer(int server) throws IOException {
        servers.stop(server);
    }

    /**
     * Starts one stopped server again on the same port and data, and waits until it serves.
     *
     * @param server the server's index, from 0
     * @throws Exception if it does not start or join its ensemble
     */
    public void restartServer(int server) throws Exception {
        servers.restart(server);
    }

    /**
     * Returns the index of the server that leads the ensemble, waiting for an election to end.
     *
     * @return the leader's index (0 for a single server)
     */
    public int leader() {
        return servers.leader();
    }

    /**
     * Stops the server that leads the ensemble; the others elect a new leader. Restart it with
     * {@link #restartServer(int)}, or leave it to the extension after the test.
     *
     * @return the index of the server that was stopped
     * @throws IOException if the server does not stop
     */
    public int killLeader() throws IOException {
        int leader = servers.leader();
        servers.stop(leader);
        return leader;
    }

    /**
     * Stops a running server that does not lead the ensemble; the quorum stays.
     *
     * @return the index of the server that was stopped
     * @throws IOException if the server does not stop
     * @throws IllegalStateException if no server but the leader runs (or the server is standalone)
     */
    public int killFollower() throws IOException {
        int follower = servers.follower()
                .orElseThrow(() -> new IllegalStateException("no follower runs in " + servers.connectString()));
        servers.stop(follower);
        return follower;
    }

    /**
     * Returns the index of the server {@code client} is connected to now.
     *
     * @param client a client made by this extension
     * @return the server's index, or -1 if the client is not connected
     */
    public int serverOf(CuratorFramework client) {
        return servers.serverOf(client).orElse(-1);
    }

    /**
     * Returns the session timeout that clients of this extension ask for.
     *
     * @return milliseconds
     */
    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    private CuratorFramework startedClient(Consumer<CuratorFrameworkFactory.Builder> customizer) {
        CuratorFrameworkFactory.Builder builder = builder();
        customizer.accept(builder);
        CuratorFramework client = builder.build();
        client.getConnectionStateListenable().addListener((c, state) -> recordSession(c));
        client.start();
        return client;
    }

    private CuratorFrameworkFactory.Builder builder() {
        return CuratorFrameworkFactory.builder()
                .connectString(servers.connectString())
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(connectionTimeoutMs)
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 500));
    }

    private void awaitConnected(CuratorFramework client) {
        try {
            assertThat(client.blockUntilConnected(connectionTimeoutMs, TimeUnit.MILLISECONDS))
                    .as("client connected to %s", servers.connectString())
                    .isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting", e);
        }
        if (client != admin) {
            recordSession(client);
        }
    }

    private void recordSession(CuratorFramework client) {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            return;
        }
        try {
            long id = client.getZookeeperClient().getZooKeeper().getSessionId();
            if (id != 0) {
                sessions.add(id);
            }
        } catch (Exception e) {
            // not connected now; the session is recorded at the next state change
        }
    }

    List<CuratorFramework> clients() {
        return new ArrayList<>(clients);
    }
}
