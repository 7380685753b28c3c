package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.ContextTimer;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The per-client context: one per client (a namespace view shares it), its timer thread started by the work that needs
 * it, and nothing of it left once the client closes.
 */
@Timeout(60)
final class ClientContextTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void of_clientAndItsNamespaceView_shareOneContext() {
        CuratorFramework client = zk.newClient();

        assertThat(ClientContext.of(client.usingNamespace("elsewhere"))).isSameAs(ClientContext.of(client));
        assertThat(ClientContext.of(zk.newClient())).isNotSameAs(ClientContext.of(client));
    }

    @Test
    void close_afterAsyncWaitsARegistryAndHandOffs_leavesNoThreadOfTheClient() throws Exception {
        CuratorFramework client = zk.newClient();
        ClientContext context = ClientContext.of(client);
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        CompletableFuture<LockHold> waiting = lock.acquireAsync(Duration.ofMinutes(5)); // a deadline on the timer
        ZkLockRegistry registry = new ZkLockRegistry(client, zk.path("registry"));
        registry.obtain("order-1"); // an idle sweep on the timer
        await().until(() -> holder.participantNodes().size() == 2);
        assertThat(((ContextTimer) context.timer()).isRunning()).isTrue();

        client.close();

        await().until(() -> !((ContextTimer) context.timer()).isRunning()
                && !threadAlive(((ContextTimer) context.timer()).threadName()));
        assertThatThrownBy(waiting::get).isInstanceOf(ExecutionException.class);
        holder.release();
    }

    @Test
    void of_closedClient_neverStartsATimerThread() {
        CuratorFramework client = zk.newClient();
        client.close();

        ClientContext context = ClientContext.of(client);

        assertThat(context.timer().schedule(() -> {}, 0)).isNull();
        assertThat(((ContextTimer) context.timer()).isRunning()).isFalse();
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals(name));
    }
}
