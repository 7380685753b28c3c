package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client closed while one of its acquires waits ends that acquire at once: a blocking form throws
 * {@link IllegalStateException}, an asynchronous form's future fails with it (issue 18: every acquire comes back). Each
 * acquire waits as long as it takes, so only the close can end it; it must end within one request timeout of the close.
 *
 * <table>
 *   <caption>Outcomes, for each acquire form</caption>
 *   <tr><th>the acquire waits</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>connected, for the node ahead (a lease, for a semaphore) that another client holds</td>
 *       <td>IllegalStateException naming the lock's path and the client's state, within a request timeout of the
 *       close; the waiter's nodes go with its session</td>
 *       <td>waits on, for ever; another exception; a node left</td></tr>
 *   <tr><td>for a connection (the server is stopped)</td><td>the same</td>
 *       <td>waits on until the server returns, or for ever</td></tr>
 * </table>
 */
@Timeout(120)
final class CloseWhileAcquiringTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private CuratorFramework observer;

    @BeforeEach
    void observe() {
        observer = zk.newClient();
    }

    /** One acquire form, waiting as long as it takes. */
    enum Form {
        REENTRANT_LOCK_ACQUIRE("lock", "lock") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                ZkReentrantLock lock = new ZkReentrantLock(client, path);
                return actor.run(lock::acquire);
            }
        },
        REENTRANT_LOCK_ACQUIRE_ASYNC("lock", "lock") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                return new ZkReentrantLock(client, path).acquireAsync();
            }
        },
        SEMAPHORE_MUTEX_ACQUIRE("mutex", "mutex/leases") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                ZkExclusiveLock mutex = ZkExclusiveLock.semaphoreMutex(client, path);
                return actor.run(mutex::acquire);
            }
        },
        SEMAPHORE_MUTEX_ACQUIRE_ASYNC("mutex", "mutex/leases") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                return ZkExclusiveLock.semaphoreMutex(client, path).acquireAsync();
            }
        },
        SEMAPHORE_ACQUIRE("sem", "sem/leases") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                ZkSemaphore semaphore = new ZkSemaphore(client, path, 1);
                return actor.submit(semaphore::acquire);
            }
        },
        SEMAPHORE_ACQUIRE_ASYNC("sem", "sem/leases") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                return new ZkSemaphore(client, path, 1).acquireAsync();
            }
        },
        MULTI_LOCK_ACQUIRE("multi/b", "multi/b") {
            @Override
            Future<?> start(CuratorFramework client, String path, LockActor actor) {
                ZkMultiLock lock = new ZkMultiLock(client, List.of(zk.path("multi/a"), path));
                return actor.run(lock::acquire);
            }
        };

        final String lock; // the path the form acquires, under the test's base path
        final String queue; // where its waiting node shows

        Form(String lock, String queue) {
            this.lock = lock;
            this.queue = queue;
        }

        /** Starts an acquire without a timeout, on {@code actor} if it blocks; returns its outcome. */
        abstract Future<?> start(CuratorFramework client, String path, LockActor actor);

        /** Takes the lock on {@code client}, as a lock of the same kind; returns its release. */
        AutoCloseable hold(CuratorFramework client) throws Exception {
            String path = zk.path(lock);
            if (this == SEMAPHORE_ACQUIRE || this == SEMAPHORE_ACQUIRE_ASYNC) {
                return new ZkSemaphore(client, path, 1).acquire();
            }
            if (this == SEMAPHORE_MUTEX_ACQUIRE || this == SEMAPHORE_MUTEX_ACQUIRE_ASYNC) {
                return ZkExclusiveLock.semaphoreMutex(client, path).hold();
            }
            return ZkExclusiveLock.mutexLayout(client, path).hold();
        }
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void acquire_whenItsClientClosesWhileWaitingForTheNodeAhead_endsWithIllegalState(Form form) throws Exception {
        CuratorFramework waiterClient = zk.newClient();
        try (AutoCloseable held = form.hold(zk.newClient());
                LockActor actor = LockActor.start("waiter")) {
            Future<?> waiting = form.start(waiterClient, zk.path(form.lock), actor);
            await().until(() -> queue(form).size() == 2);

            expectIllegalStateSoonAfterClosing(form, waiterClient, waiting);

            await().until(() -> queue(form).size() == 1); // the waiter's node went with its session
        }
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void acquire_whenItsClientClosesWhileTheServerIsDown_endsWithIllegalState(Form form) throws Exception {
        CuratorFramework waiterClient = zk.newClient();
        zk.stopServer();
        // Nothing in flight: the acquire starts once the client knows it is disconnected, and waits for a connection.
        await().until(() -> !waiterClient.getZookeeperClient().isConnected());
        try (LockActor actor = LockActor.start("waiter")) {
            Future<?> waiting = form.start(waiterClient, zk.path(form.lock), actor);

            expectIllegalStateSoonAfterClosing(form, waiterClient, waiting);
        }
        zk.restartServer();
        assertThat(queue(form)).isEmpty();
    }

    /** Closes {@code client} and expects {@code waiting} to end with IllegalStateException within a request timeout. */
    private static void expectIllegalStateSoonAfterClosing(Form form, CuratorFramework client, Future<?> waiting)
            throws Exception {
        long requestTimeoutMs = zk.sessionTimeoutMs() * 2L / 3;
        assertThat(waiting).isNotDone();

        long closing = System.nanoTime();
        client.close();
        long closed = System.nanoTime();

        try {
            waiting.get(requestTimeoutMs, TimeUnit.MILLISECONDS);
            fail("the acquire returned on a closed client");
        } catch (TimeoutException stillWaiting) {
            fail("the acquire still waits %d ms after its client closed", requestTimeoutMs);
        } catch (ExecutionException e) {
            assertThat(e.getCause())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(zk.basePath())
                    .hasMessageContaining("STOPPED");
        }
        System.out.printf(
                "%s ended %d ms after the close began (the close took %d ms)%n",
                form, (System.nanoTime() - closing) / 1_000_000, (closed - closing) / 1_000_000);
    }

    private List<String> queue(Form form) throws Exception {
        try {
            return observer.getChildren().forPath(zk.path(form.queue));
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
