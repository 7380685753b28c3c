package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bad input gets a clear exception that names the value, before any ZooKeeper call, and leaves no node. */
@Timeout(60)
final class BadInputTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void constructors_nullArguments_throwNamingTheParameter() {
        CuratorFramework client = zk.newClient();

        assertThatThrownBy(() -> new ZkReentrantLock(null, "/a"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> new ZkReentrantLock(client, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("path");
        assertThatThrownBy(() -> new ZkReentrantLock(client, "/a", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("driver");
        assertThatThrownBy(() -> new ZkExclusiveLock(null, "/a"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> new ZkExclusiveLock(client, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("path");
        assertThatThrownBy(() -> new ZkReadWriteLock(null, "/a"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> new ZkReadWriteLock(client, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("path");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "locks/a", "/locks/a/", "/locks//a", "/locks/./a", "/locks/../a", "/locks/a\u0000"})
    void constructors_malformedPath_throwIllegalArgumentNamingThePath(String path) {
        CuratorFramework client = zk.newClient();

        assertThatThrownBy(() -> new ZkReentrantLock(client, path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + path + "'");
        assertThatThrownBy(() -> new ZkExclusiveLock(client, path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + path + "'");
        assertThatThrownBy(() -> new ZkReadWriteLock(client, path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + path + "'");
        assertThatThrownBy(() -> new ZkMultiLock(client, List.of("/ok", path)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + path + "'");
    }

    @Test
    void acquire_nullTimeUnitOrDuration_throwsNamingTheParameterAndCreatesNothing() throws Exception {
        ZkReentrantLock reentrant = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkExclusiveLock exclusive = new ZkExclusiveLock(zk.newClient(), zk.path("lock"));

        assertThatThrownBy(() -> reentrant.acquire(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> reentrant.acquire((Duration) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("timeout");
        assertThatThrownBy(() -> exclusive.acquire(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> exclusive.acquire((Duration) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("timeout");
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("lock"));
        assertThatThrownBy(() -> readWrite.readLock().acquire(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> readWrite.writeLock().acquire((Duration) null))
                .isInstanceOf(NullPointerException.class);
        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), List.of(zk.path("lock"), zk.path("other")));
        assertThatThrownBy(() -> multi.acquire(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("unit");
        assertThatThrownBy(() -> multi.acquire((Duration) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("timeout");
        assertThat(reentrant.participantNodes()).isEmpty();
    }

    @Test
    void acquire_byHolderWithNullUnit_throwsAndKeepsTheHoldCount() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();

        assertThatThrownBy(() -> lock.acquire(1, null)).isInstanceOf(NullPointerException.class);

        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.release();
    }

    @Test
    void acquire_unstartedClient_throwsIllegalStateNamingStateAndPath() throws Exception {
        CuratorFramework unstarted = zk.newUnstartedClient();
        ZkReentrantLock reentrant = new ZkReentrantLock(unstarted, zk.path("lock"));
        ZkExclusiveLock exclusive = new ZkExclusiveLock(unstarted, zk.path("lock"));

        assertThatThrownBy(reentrant::acquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(zk.path("lock"));
        assertThatThrownBy(() -> exclusive.acquire(1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(zk.path("lock"));
        assertThatThrownBy(reentrant::participantNodes).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new ZkReadWriteLock(unstarted, zk.path("lock"))
                        .readLock()
                        .acquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT");
        assertThatThrownBy(() -> new ZkMultiLock(unstarted, List.of(zk.path("lock"))).acquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT");
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }

    @Test
    void acquire_closedClient_throwsIllegalStateNamingStateAndPath() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        client.close();

        assertThatThrownBy(() -> lock.acquire(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("STOPPED")
                .hasMessageContaining(zk.path("lock"));
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }

    @Test
    void release_afterTheClientClosed_clearsTheHoldWithoutThrowing() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        lock.acquire();
        client.close();

        lock.release();

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }

    @Test
    void acquire_driverNamesANodeNotAheadOfOurs_throwsIllegalArgumentAndLeavesNoNode() throws Exception {
        LockDriver watchesItself =
                view -> view.ourIndex() == 0 && view.children().size() == 1
                        ? LockDecision.holds()
                        : LockDecision.watch(view.ourNode());
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), watchesItself);
        holder.acquire();

        assertThatThrownBy(() -> broken.acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not ranked before our node")
                .hasMessageContaining(zk.path("lock"));

        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
    }

    @Test
    void acquire_driverReturnsNull_throwsIllegalArgumentAndLeavesNoNode() {
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), view -> null);

        assertThatThrownBy(broken::acquire)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no decision")
                .hasMessageContaining(zk.path("lock"));
    }

    @Test
    void acquire_driverSortDropsOurNode_throwsIllegalArgumentAndLeavesNoNode() throws Exception {
        LockDriver dropsAll = new LockDriver() {
            @Override
            public List<String> sort(java.util.Collection<String> children) {
                return List.of();
            }

            @Override
            public LockDecision decide(LockQueueView view) {
                return LockDecision.holds();
            }
        };
        ZkReentrantLock broken = new ZkReentrantLock(zk.newClient(), zk.path("lock"), dropsAll);

        assertThatThrownBy(broken::acquire)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(zk.path("lock"));
        assertThat(new ZkReentrantLock(zk.newClient(), zk.path("lock")).participantNodes())
                .isEmpty();
    }
}
