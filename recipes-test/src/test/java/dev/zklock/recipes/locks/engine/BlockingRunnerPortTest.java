package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.CreateRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The blocking runner ({@link BlockingRunner}, what a platform thread's acquire runs) reaches the client only through
 * the engine's ports: run over a {@link ClientPort} that is not Curator's ({@link ForeignPort}), with a lock path whose
 * Curator client is never started (any call to it would throw), it takes, waits for and releases real nodes of a real
 * server, and every request it sends goes through the port's session. The port leaves the synchronous calls ({@link
 * SessionPort#childrenNow}, {@link SessionPort#watchDataNow}), the wait for a connection ({@link
 * ClientPort#awaitConnected}) and the making of the lock path ({@link ClientPort#makeContainerNow}) to their defaults,
 * which wait through {@link Parking}: what the simulator's port does.
 */
@Timeout(60)
final class BlockingRunnerPortTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private CuratorFramework real;
    private ForeignPort port;
    private ClientContext context;
    private ExecutorService waiter;

    @BeforeEach
    void setUp() {
        real = zk.newClient();
        port = new ForeignPort(real);
        context = ClientContext.over(port);
        waiter = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void tearDown() {
        waiter.shutdownNow();
        context.close();
        port.close();
    }

    /** A lock path of the foreign port, named by a Curator client that is never started. */
    private LockPath lockPath(String name) {
        return new LockPath(zk.newUnstartedClient(), context, zk.path(name), "lock-", LockDriver.exclusive());
    }

    @Test
    void acquire_onAPathNotMadeYet_makesItThroughThePortAndTakesTheLock() throws Exception {
        LockPath lock = lockPath("lock");

        LockNode node = lock.acquire(Deadline.after(TIMEOUT.toNanos())).orElseThrow();

        // The create and the listing find no path; the path is made through the port; the create goes again.
        assertThat(port.sent).startsWith("create", "children", "makeContainer");
        holdsAloneThenReleases(lock, Optional.of(node));
    }

    @Test
    void acquire_uncontended_sendsTheCreateAndTheListingThroughThePortAloneAndReleasesThroughIt() throws Exception {
        LockPath lock = lockPath("lock");
        real.create().forPath(lock.path()); // persistent: the server does not reap it between the steps here

        LockNode node = lock.acquire(Deadline.after(TIMEOUT.toNanos())).orElseThrow();
        assertThat(real.checkExists().forPath(node.path())).isNotNull();
        lock.end(node);

        // The create and the listing behind it (the synchronous listing's default sends the asynchronous one), the
        // watch on our own node as it is held, and the delete of the release.
        assertThat(port.sent).containsExactly("create", "children", "watchData", "delete");
        assertThat(real.checkExists().forPath(node.path())).isNull();
    }

    @Test
    void acquire_whileAnotherClientHolds_watchesTheNodeAheadThroughThePortAndTakesTheLockOnItsRelease()
            throws Exception {
        ZkExclusiveLock holder = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock"));
        holder.acquire();
        LockPath lock = lockPath("lock");

        Future<Optional<LockNode>> taking = waiter.submit(() -> lock.acquire(Deadline.after(TIMEOUT.toNanos())));
        await().atMost(TIMEOUT).until(() -> children(zk.path("lock")).size() == 2 && port.sent.contains("watchData"));
        assertThat(taking).isNotDone();
        holder.release();
        holdsAloneThenReleases(lock, taking.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void acquire_whileDisconnected_waitsForTheConnectionThroughThePortAndTakesTheLockOnceConnected() throws Exception {
        LockPath lock = lockPath("lock");
        lock.end(lock.acquire(Deadline.after(TIMEOUT.toNanos())).orElseThrow()); // the path is made
        zk.stopServer();
        await().atMost(TIMEOUT).until(() -> !port.isConnected());

        assertThat(context.sessionEnds().waitingCount()).isZero();
        Future<Optional<LockNode>> taking = waiter.submit(() -> lock.acquire(Deadline.after(TIMEOUT.toNanos())));
        // The default wait for a connection waits on the client's session ends, not in Curator.
        await().atMost(TIMEOUT).until(() -> context.sessionEnds().waitingCount() > 0);
        assertThat(taking).isNotDone();
        zk.restartServer();
        holdsAloneThenReleases(lock, taking.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    }

    /** Checks that {@code taken} is the one node at the lock path, and that its release deletes it. */
    private void holdsAloneThenReleases(LockPath lock, Optional<LockNode> taken) throws Exception {
        LockNode node = taken.orElseThrow();
        assertThat(children(lock.path())).containsExactly(node.name());
        lock.end(node);
        assertThat(children(lock.path())).isEmpty();
    }

    /** The children of {@code path}; none once the server has reaped it (a container left empty). */
    private List<String> children(String path) throws Exception {
        try {
            return real.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException reaped) {
            return List.of();
        }
    }

    /**
     * A client port that is not Curator's: its sessions are ZooKeeper handles of a real client seen only through {@link
     * SessionPort}'s abstract methods, each call named in {@link #sent}; its waits and the making of a path are the
     * port's defaults; its timer a thread of its own. Safe for use by multiple threads.
     */
    private static final class ForeignPort implements ClientPort, TimerPort {
        final List<String> sent = Collections.synchronizedList(new ArrayList<>());
        private final CuratorFramework real;
        private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "foreign-port-timer");
            thread.setDaemon(true);
            return thread;
        });
        private volatile SessionPort last;

        ForeignPort(CuratorFramework real) {
            this.real = real;
        }

        void close() {
            timer.shutdownNow();
        }

        @Override
        public boolean isStarted() {
            return real.getState() == CuratorFrameworkState.STARTED;
        }

        @Override
        public boolean isConnected() {
            return real.getZookeeperClient().isConnected();
        }

        @Override
        public SessionPort current() {
            ZooKeeper zooKeeper;
            try {
                zooKeeper = real.getZookeeperClient().getZooKeeper();
            } catch (Exception closedOrNotConnected) {
                return null;
            }
            SessionPort known = last;
            if (known != null && known.sessionId() == zooKeeper.getSessionId()) {
                return known;
            }
            SessionPort made = recording(ZooKeeperHandle.on(zooKeeper));
            last = made;
            return made;
        }

        /** {@code handle} as a session port whose default methods stay the interface's: every other call recorded. */
        private SessionPort recording(ZooKeeperHandle handle) {
            InvocationHandler calls = (proxy, method, args) -> {
                if (method.isDefault()) {
                    return InvocationHandler.invokeDefault(proxy, method, args);
                }
                if (method.getDeclaringClass() == SessionPort.class
                        && !method.getName().equals("sessionId")) {
                    sent.add(method.getName());
                }
                try {
                    return method.invoke(handle, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            return (SessionPort) Proxy.newProxyInstance(
                    SessionPort.class.getClassLoader(), new Class<?>[] {SessionPort.class}, calls);
        }

        @Override
        public long requestTimeoutNanos() {
            return TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs() * 2L / 3);
        }

        @Override
        public TimerPort timer() {
            return this;
        }

        @Override
        public long read() {
            return System.nanoTime();
        }

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            return timer.isShutdown() ? null : timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int sessionTimeoutMs() {
            return real.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        }

        @Override
        public Executor executor() {
            return ForkJoinPool.commonPool();
        }

        @Override
        public void addConnectionStateListener(ConnectionStateListener listener) {
            real.getConnectionStateListenable().addListener(listener);
        }

        /** The lock path alone (the test's base path stands), created on the current session as a container. */
        @Override
        public void makeContainer(LockPath lock, Consumer<Code> made) {
            sent.add("makeContainer");
            SessionPort session = current();
            if (session == null) {
                made.accept(Code.CONNECTIONLOSS);
                return;
            }
            session.create(
                            lock.fixed(lock.path()),
                            new byte[0],
                            ZooDefs.Ids.OPEN_ACL_UNSAFE,
                            CreateMode.CONTAINER,
                            Reply::code)
                    .thenAccept(made);
        }

        @Override
        public CreateRequest createRequest(LockPath lock, String nodePath, byte[] data, CreateMode mode) {
            return new CreateRequest(
                    lock.fixed(nodePath),
                    data == null ? new byte[0] : data,
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    mode.toFlag());
        }

        @Override
        public void deleteInBackground(LockPath lock, String nodePath) {
            sent.add("deleteInBackground");
            try {
                real.delete().guaranteed().inBackground().forPath(nodePath);
            } catch (Exception e) {
                throw new IllegalStateException("could not send the delete of " + nodePath, e);
            }
        }

        /** Recorded only: no test here loses a create's reply, and a sweep would show in {@link #sent}. */
        @Override
        public void sweepInBackground(LockPath lock, String prefix) {
            sent.add("sweepInBackground");
        }
    }
}
