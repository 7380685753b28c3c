package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that runs one real ZooKeeper server ({@code curator-test}'s {@link TestingServer}) per test
 * class, hands each test fresh clients and a base path of its own, and checks after every test that nothing leaked.
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
 * non-daemon thread running; then it closes the test's clients. Faults are real: {@link #expireSession} ends a session
 * on the server, {@link #stopServer()} and {@link #restartServer()} stop and start the server.
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
    private final int sessionTimeoutMs;
    private final int connectionTimeoutMs;
    private TestingServer server;
    private CuratorFramework admin;
    private volatile boolean serverStopped;
    private volatile String basePath;
    private volatile Set<Thread> threadsBefore = Set.of();

    private ZooKeeperExtension(int sessionTimeoutMs, int connectionTimeoutMs) {
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.connectionTimeoutMs = connectionTimeoutMs;
    }

    /**
     * Returns an extension with one server per test class; clients get a 10 s session and a 5 s connection timeout.
     *
     * @return a new extension
     */
    public static ZooKeeperExtension server() {
        return new ZooKeeperExtension(10_000, 5_000);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        System.setProperty(ServerCounters.FOUR_LETTER_WORDS, "*");
        System.setProperty("znode.container.checkIntervalMs", "100");
        server = new TestingServer(true);
        admin = builder().build();
        admin.start();
        awaitConnected(admin);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (admin != null) {
            admin.close();
        }
        if (server != null) {
            server.close();
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
            if (serverStopped) {
                restartServer();
            }
            LeakChecks.assertNoLockNodes(server.getConnectString(), sessions);
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
     * Returns the connect string of the server.
     *
     * @return {@code host:port}
     */
    public String connectString() {
        return server.getConnectString();
    }

    /**
     * Returns the server's request counters now.
     *
     * @return a reading of the counters
     */
    public ServerCounters counters() {
        return ServerCounters.read("127.0.0.1", server.getPort());
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
     * Stops the server; every client loses its connection. The server is restarted after the test if need be.
     *
     * @throws IOException if the server does not stop
     */
    public void stopServer() throws IOException {
        serverStopped = true;
        server.stop();
    }

    /**
     * Starts the server again on the same port and data, so sessions that have not timed out survive.
     *
     * @throws Exception if the server does not start
     */
    public void restartServer() throws Exception {
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        server.restart();
        serverStopped = false;
        Set<Thread> serverThreads =
                new java.util.HashSet<>(Thread.getAllStackTraces().keySet());
        serverThreads.removeAll(before);
        serverThreads.addAll(threadsBefore);
        threadsBefore = Set.copyOf(serverThreads); // the server's own new threads are not the test's leak
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
                .connectString(server.getConnectString())
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(connectionTimeoutMs)
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 500));
    }

    private void awaitConnected(CuratorFramework client) {
        try {
            assertThat(client.blockUntilConnected(connectionTimeoutMs, TimeUnit.MILLISECONDS))
                    .as("client connected to %s", server.getConnectString())
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
