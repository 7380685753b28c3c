package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A grant that the rule does not admit, once the deadline has passed, is given up within the acquire's bound: its
 * node's delete is waited for until one request timeout after the deadline, not for a request timeout of its own from
 * the moment of the give-up. The take may come back past the deadline (a runner waits for a reply sent before it until
 * that same bound), and the partition rig saw four view locks' first acquires on a cold client come back 5 to 257 ms
 * past their timeout plus one request timeout, each having logged, on its own thread, that its node's delete could
 * not be sent: the drop's delete had been given a fresh request timeout after a grant that came late.
 *
 * <p>The test's take comes back half a request timeout past a 300 ms deadline, with a node a stranger deleted (its own
 * watch's word, as {@link LockNode#foundDeleted}): the rule says LOST. The client talks through a TCP proxy that then
 * holds every request back, so the drop's delete has no reply.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>interleaving</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>grant past the deadline, not admitted; its delete held back</td>
 *       <td>empty within the timeout plus one request timeout; the node deleted once requests flow</td>
 *       <td>the delete waited for a request timeout from the give-up (about 4.1 s here, against 2.97 s); a node
 *       left</td></tr>
 * </table>
 */
@Timeout(60)
final class AdmissionBoundTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final int SESSION_MS = 4_000;
    private static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    private TcpProxy proxy;
    private CuratorFramework proxied;
    private CuratorFramework observer;

    @BeforeEach
    void setUp() throws Exception {
        proxy = zk.newProxy();
        proxied = zk.newClient(
                builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(SESSION_MS));
        observer = zk.newClient();
    }

    @AfterEach
    void tearDown() {
        proxy.close();
    }

    @Test
    void admit_grantNotAdmittedAfterTheDeadline_comesBackWithinOneRequestTimeoutOfTheDeadline() throws Exception {
        LockPath lock = new LockPath(proxied, zk.path("lock"), "lock-", LockDriver.exclusive(), null);
        Stat stat = new Stat();
        String nodePath = proxied.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(zk.path("lock") + "/_c_5c3e4b6a-9d1f-4e2a-8b7c-0123456789ab-lock-");
        LockNode granted =
                new LockNode(lock, ZKPaths.getNodeFromPath(nodePath), stat.getCzxid(), stat.getEphemeralOwner());
        long requestTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(
                proxied.getZookeeperClient().getZooKeeper().getSessionTimeout() * 2L / 3);
        CountDownLatch late = new CountDownLatch(1);
        long started = System.nanoTime();
        Deadline deadline = Deadline.after(TIMEOUT_NANOS);
        assertThat(ClientContext.of(proxied).timer().schedule(late::countDown, TIMEOUT_NANOS + requestTimeoutNanos / 2))
                .isNotNull();

        Optional<List<LockNode>> admitted = Admission.admit(deadline, until -> {
            late.await();
            granted.foundDeleted("deleted by a stranger, as its own watch would say");
            proxy.holdRequests(); // the drop's delete gets no reply
            return Optional.of(List.of(granted));
        });

        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(admitted).as("a lost node is not admitted").isEmpty();
        assertThat(tookMillis)
                .as(
                        "ms to come back; the timeout plus one request timeout is %d ms",
                        TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS + requestTimeoutNanos))
                .isLessThanOrEqualTo(TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS + requestTimeoutNanos));
        proxy.resume();
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(observer.checkExists().forPath(nodePath))
                        .as("deleted by the delete on its way")
                        .isNull());
    }
}
