package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.FencedResource;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fencing example of README.md: a holder that lost its lock cannot overwrite the next holder's write. */
@Timeout(60)
final class FencingExampleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void staleHolder_afterItsSessionExpired_cannotOverwriteTheNextHolder() throws Exception {
        CuratorFramework slowClient = zk.newClient();
        ZkReentrantLock slow = new ZkReentrantLock(slowClient, zk.path("lock"));
        ZkReentrantLock fast = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        FencedResource<String> store = new FencedResource<>();
        List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        slow.addStateListener(events::add);

        slow.acquire();
        long staleToken = slow.fencingToken();
        zk.expireSession(slowClient); // a long pause: the session ends while the holder still thinks it holds
        assertThat(fast.acquire(java.time.Duration.ofSeconds(10))).isTrue();
        store.write(fast.fencingToken(), "written by the next holder");
        fast.release();

        assertThatThrownBy(() -> store.write(staleToken, "written by the stale holder"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("stale fencing token " + staleToken);
        assertThat(store.read()).contains("written by the next holder");
        await().until(() -> events.stream().anyMatch(e -> e.state() == LockState.LOST));
        slow.release();
    }
}
