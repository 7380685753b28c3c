package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connection lost while our create is on its way: the reply never comes, and only the protected name tells whether
 * the create happened. A TCP proxy between client and server loses the create or its reply at the exact moment.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>fault</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>reply lost after the server made the node</td><td>acquire holds that one node</td>
 *       <td>a second node; our own lost node blocking us</td></tr>
 *   <tr><td>request lost before the server</td><td>acquire creates again and holds one node</td>
 *       <td>no node; two nodes</td></tr>
 *   <tr><td>reply lost, acquire times out</td><td>false, and the node is deleted once the connection returns</td>
 *       <td>a node left behind</td></tr>
 * </table>
 */
@Timeout(60)
final class CreateRecoveryTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private TcpProxy proxy;
    private CuratorFramework proxied;
    private ZkReentrantLock observer;
    private CuratorFramework direct;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        proxied = zk.newClient(
                // a short session: ZooKeeper's client gives a silent connection up after two thirds of it
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(4000));
        direct = zk.newClient();
        observer = new ZkReentrantLock(direct, zk.path("lock"));
        // A persistent lock path: the test server reaps empty containers every 100 ms, and a reaped path would turn
        // the faulted create into a NONODE, so the faulted create is the only request that matters.
        direct.create().creatingParentsIfNeeded().forPath(zk.path("lock"));
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    @ParameterizedTest(name = "queue view: {0}")
    @ValueSource(booleans = {false, true})
    void acquire_whenTheCreateReplyIsLost_findsItsNodeByTheProtectedPrefix(boolean queueView) throws Exception {
        ZkReentrantLock lock = lock(queueView);
        AtomicBoolean faulted = new AtomicBoolean();
        lock.setHooks(new QueueHooks() {
            @Override
            public void createSent(String lockPath, String prefix) {
                if (faulted.compareAndSet(false, true)) {
                    proxy.holdReplies();
                    await().until(() -> observer.participantNodes().stream().anyMatch(p -> p.contains(prefix)));
                    proxy.dropConnections();
                    proxy.resume();
                }
            }
        });

        assertThat(lock.acquire(20, TimeUnit.SECONDS)).isTrue();

        assertThat(faulted).isTrue();
        assertThat(observer.participantNodes()).hasSize(1);
        lock.release();
        // The connection may drop again around the release (the proxy's drop, or the client's own read timeout after
        // the held replies, under load): its delete then waits for the connection, as NodeDeletes logs (CI, 2d08ee5).
        await().until(() -> observer.participantNodes().isEmpty());
    }

    @ParameterizedTest(name = "queue view: {0}")
    @ValueSource(booleans = {false, true})
    void acquire_whenTheCreateIsLostBeforeTheServer_createsAgainOnce(boolean queueView) throws Exception {
        ZkReentrantLock lock = lock(queueView);
        AtomicBoolean faulted = new AtomicBoolean();
        lock.setHooks(new QueueHooks() {
            @Override
            public void createSent(String lockPath, String prefix) {
                if (faulted.compareAndSet(false, true)) {
                    proxy.dropConnections();
                    proxy.resume();
                }
            }
        });
        proxy.holdRequests();

        assertThat(lock.acquire(20, TimeUnit.SECONDS)).isTrue();

        assertThat(faulted).isTrue();
        assertThat(observer.participantNodes()).hasSize(1);
        lock.release();
        assertThat(observer.participantNodes()).isEmpty();
    }

    @ParameterizedTest(name = "queue view: {0}")
    @ValueSource(booleans = {false, true})
    void acquire_whenTheCreateIsLostAndAnotherSessionMadeANodeWithOurId_createsItsOwnNode(boolean queueView)
            throws Exception {
        ZkReentrantLock lock = lock(queueView);
        AtomicReference<String> planted = new AtomicReference<>();
        lock.setHooks(new QueueHooks() {
            @Override
            public void createSent(String lockPath, String prefix) {
                if (planted.get() == null) {
                    // Protection ids are not secret: another session makes a node bearing ours (ranked last).
                    planted.set(ZKPaths.makePath(lockPath, prefix + "9999999999"));
                    try {
                        direct.create().withMode(CreateMode.EPHEMERAL).forPath(planted.get());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    proxy.dropConnections();
                    proxy.resume();
                }
            }
        });
        proxy.holdRequests();

        assertThat(lock.acquire(20, TimeUnit.SECONDS)).isTrue();

        assertThat(planted.get()).isNotNull();
        assertThat(lock.participantNodes()).hasSize(2).contains(planted.get());
        lock.release();
        // Our hold was our own node: the other session's node is still there, and only it.
        assertThat(observer.participantNodes()).containsExactly(planted.get());
        direct.delete().forPath(planted.get());
    }

    @ParameterizedTest(name = "queue view: {0}")
    @ValueSource(booleans = {false, true})
    void acquire_whenItTimesOutWithTheCreateReplyLost_leavesNoNodeOnceTheConnectionReturns(boolean queueView)
            throws Exception {
        ZkReentrantLock lock = lock(queueView);
        lock.setHooks(new QueueHooks() {
            @Override
            public void createSent(String lockPath, String prefix) {
                proxy.holdReplies();
                await().until(() -> observer.participantNodes().stream().anyMatch(p -> p.contains(prefix)));
            }
        });

        // The reply never comes: the acquire gives up once ZooKeeper's client declares the connection lost.
        assertThat(lock.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        proxy.resume();

        await().atMost(20, TimeUnit.SECONDS)
                .until(() -> observer.participantNodes().isEmpty());
    }

    /** The lock under test on the proxied client: plain, or reading its queue from the client's queue view. */
    private ZkReentrantLock lock(boolean queueView) {
        return queueView
                ? ZkReentrantLock.builder(proxied, zk.path("lock")).queueView().build()
                : new ZkReentrantLock(proxied, zk.path("lock"));
    }
}
