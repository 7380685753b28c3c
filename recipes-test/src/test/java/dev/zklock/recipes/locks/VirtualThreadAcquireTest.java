package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.VirtualThreads;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The blocking acquire of a virtual thread, which runs its steps on callbacks and parks once ({@code
 * CallbackRunner.await}), keeps the blocking acquire's contract: what it made is deleted before it returns false or
 * throws, an interrupt clears the flag, a close ends it with {@link IllegalStateException}, a session's end makes it
 * enter again, and it comes back within its timeout plus one request timeout on a silent network. Virtual threads need
 * release 21; the {@code jdk25} execution runs this class, and on an older JVM it is skipped.
 *
 * <table>
 *   <caption>Outcomes of a virtual thread's acquire behind another client's hold</caption>
 *   <tr><th>what happens while it waits</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>its timeout passes</td><td>false, with its node gone when it returns</td>
 *       <td>its node still there on return</td></tr>
 *   <tr><td>it is interrupted</td><td>InterruptedException, flag clear, its node gone when it throws</td>
 *       <td>its node still there on return; the flag still set</td></tr>
 *   <tr><td>its client closes</td><td>IllegalStateException naming the path</td><td>waits on</td></tr>
 *   <tr><td>its session expires, then the holder releases</td><td>holds, on the new session</td>
 *       <td>waits on</td></tr>
 *   <tr><td>the network goes silent, create sent</td><td>false within the timeout plus one request timeout</td>
 *       <td>a second request timeout</td></tr>
 * </table>
 */
@Timeout(60)
final class VirtualThreadAcquireTest {
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    /** What a timer's thread may take to run a task that is due, on this busy shared machine. */
    private static final long TIMER_LATENCY_MS = 500;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private CuratorFramework observer;
    private String path;

    @BeforeAll
    static void virtualThreads() {
        assumeTrue(VirtualThreads.isAvailable(), "virtual threads need release 21; this JVM is " + Runtime.version());
    }

    @BeforeEach
    void setUp() {
        observer = zk.newClient();
        path = zk.path("lock");
    }

    @Test
    void acquire_timingOutBehindAnotherClientsHold_returnsFalseWithItsNodeGone() throws Exception {
        try (LockActor holder = LockActor.start("holder")) {
            ZkReentrantLock held = holdOn(holder);
            ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), path);

            CompletableFuture<List<String>> leftOnReturn = onVirtualThread(() -> {
                assertThat(lock.acquire(TIMEOUT)).isFalse();
                return children();
            });

            assertThat(leftOnReturn.get(30, TimeUnit.SECONDS)).hasSize(1); // the holder's alone
            holder.run(held::release).join();
        }
    }

    @Test
    void acquire_interruptedWhileWaiting_throwsWithTheFlagClearAndItsNodeGone() throws Exception {
        try (LockActor holder = LockActor.start("holder")) {
            ZkReentrantLock held = holdOn(holder);
            ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), path);
            CompletableFuture<Thread> thread = new CompletableFuture<>();

            CompletableFuture<List<String>> leftOnThrow = waitingOnVirtualThread(lock, () -> {
                thread.complete(Thread.currentThread());
                assertThatThrownBy(lock::acquire).isInstanceOf(InterruptedException.class);
                assertThat(Thread.currentThread().isInterrupted()).isFalse();
                return children();
            });
            thread.get().interrupt();

            assertThat(leftOnThrow.get(30, TimeUnit.SECONDS)).hasSize(1); // the holder's alone
            holder.run(held::release).join();
        }
    }

    @Test
    void acquire_whenItsClientClosesWhileWaiting_failsWithIllegalStateNamingThePath() throws Exception {
        try (LockActor holder = LockActor.start("holder")) {
            ZkReentrantLock held = holdOn(holder);
            CuratorFramework client = zk.newClient();
            ZkReentrantLock lock = new ZkReentrantLock(client, path);

            CompletableFuture<Throwable> failure = waitingOnVirtualThread(lock, () -> {
                try {
                    lock.acquire();
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
            client.close();

            assertThat(failure.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(path);
            holder.run(held::release).join();
        }
    }

    @Test
    void acquire_whoseSessionExpiresWhileWaiting_entersAgainAndHoldsOnceReleased() throws Exception {
        try (LockActor holder = LockActor.start("holder")) {
            ZkReentrantLock held = holdOn(holder);
            CuratorFramework client = zk.newClient();
            ZkReentrantLock lock = new ZkReentrantLock(client, path);
            long before = client.getZookeeperClient().getZooKeeper().getSessionId();

            CompletableFuture<Long> heldOnSession = waitingOnVirtualThread(lock, () -> {
                lock.acquire();
                try {
                    return client.getZookeeperClient().getZooKeeper().getSessionId();
                } finally {
                    lock.release();
                }
            });
            zk.expireSession(client);
            await().atMost(Duration.ofSeconds(20)).until(() -> children().size() == 2); // entered again
            holder.run(held::release).join();

            assertThat(heldOnSession.get(30, TimeUnit.SECONDS)).isNotEqualTo(before);
        }
    }

    /**
     * As {@code AcquireBoundsTest}'s silent partition, on a virtual thread: requests and replies are held back, the
     * create's reply is lost after one request timeout, past the deadline, and the acquire ends there.
     */
    @Test
    void acquire_onASilentPartitionWithTheCreateSent_endsWithinOneRequestTimeoutOfItsDeadline() throws Exception {
        try (TcpProxy proxy = zk.newProxy()) {
            CuratorFramework proxied = zk.newClient(
                    builder -> builder.connectString(proxy.connectString()).sessionTimeoutMs(4_000));
            long requestTimeoutMs = proxied.getZookeeperClient().getZooKeeper().getSessionTimeout() * 2L / 3;
            ZkReentrantLock lock = new ZkReentrantLock(proxied, path);
            proxy.holdRequests();
            proxy.holdReplies();

            CompletableFuture<Long> tookMs = onVirtualThread(() -> {
                long started = System.nanoTime();
                assertThat(lock.acquire(TIMEOUT)).isFalse();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            });

            assertThat(tookMs.get(30, TimeUnit.SECONDS))
                    .as("ms to come back (the timeout and one request timeout, and %d ms more)", TIMER_LATENCY_MS)
                    .isLessThanOrEqualTo(TIMEOUT.toMillis() + requestTimeoutMs + TIMER_LATENCY_MS);
            proxy.resume();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(proxied.getZookeeperClient().isConnected()).isTrue();
                assertThat(children()).isEmpty();
            });
        }
    }

    /** A call that may throw anything, run on a virtual thread. */
    @FunctionalInterface
    private interface Call<T> {
        T call() throws Exception;
    }

    private static <T> CompletableFuture<T> onVirtualThread(Call<T> call) {
        CompletableFuture<T> outcome = new CompletableFuture<>();
        VirtualThreads.start(() -> {
            try {
                outcome.complete(call.call());
            } catch (Throwable e) {
                outcome.completeExceptionally(e);
            }
        });
        return outcome;
    }

    /** Takes the lock on {@code holder}'s thread, with a client of its own; returns it, held. */
    private ZkReentrantLock holdOn(LockActor holder) {
        ZkReentrantLock held = new ZkReentrantLock(zk.newClient(), path);
        holder.run(held::acquire).join();
        return held;
    }

    /** Runs {@code call}, which acquires {@code lock}, on a virtual thread; returns once that acquire watches. */
    private static <T> CompletableFuture<T> waitingOnVirtualThread(ZkReentrantLock lock, Call<T> call)
            throws InterruptedException {
        CountDownLatch watching = new CountDownLatch(1);
        lock.setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watching.countDown();
            }
        });
        CompletableFuture<T> outcome = onVirtualThread(call);
        assertThat(watching.await(10, TimeUnit.SECONDS))
                .as("the acquire watches the node ahead")
                .isTrue();
        return outcome;
    }

    private List<String> children() throws Exception {
        try {
            return observer.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
