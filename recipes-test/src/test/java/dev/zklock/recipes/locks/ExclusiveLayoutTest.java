package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A mixed fleet as a migrating team builds it, each process on a client of its own: Curator's non-reentrant lock and
 * {@code new ZkExclusiveLock} on one path exclude each other whichever holds first, and a lock of the other layout
 * on that path is refused with an error that names both layouts and the factory to use, leaving no node of its own.
 */
@Timeout(60)
final class ExclusiveLayoutTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final long SHORT_MS = 300;

    private CuratorFramework observer;

    @BeforeEach
    void observe() {
        observer = zk.newClient();
    }

    @Test
    void constructor_curatorSemaphoreMutexHoldingFirst_waitsUntilItsRelease() throws Exception {
        InterProcessSemaphoreMutex curator = new InterProcessSemaphoreMutex(zk.newClient(), zk.path("job"));
        ZkExclusiveLock zklock = new ZkExclusiveLock(zk.newClient(), zk.path("job"));
        curator.acquire();

        assertThat(zklock.acquire(SHORT_MS, TimeUnit.MILLISECONDS))
                .as("beside Curator's holder")
                .isFalse();
        curator.release();
        assertThat(zklock.acquire(5, TimeUnit.SECONDS)).isTrue();
        zklock.release();
    }

    @Test
    void constructor_holdingFirst_curatorSemaphoreMutexWaitsUntilItsRelease() throws Exception {
        InterProcessSemaphoreMutex curator = new InterProcessSemaphoreMutex(zk.newClient(), zk.path("job"));
        ZkExclusiveLock zklock = new ZkExclusiveLock(zk.newClient(), zk.path("job"));
        zklock.acquire();

        assertThat(curator.acquire(SHORT_MS, TimeUnit.MILLISECONDS))
                .as("beside zklock's holder")
                .isFalse();
        zklock.release();
        assertThat(curator.acquire(5, TimeUnit.SECONDS)).isTrue();
        curator.release();
    }

    @Test
    void constructor_curatorMutexHolding_isRefusedNamingBothLayoutsAndTheFactory() throws Exception {
        InterProcessMutex curator = new InterProcessMutex(zk.newClient(), zk.path("job"));
        curator.acquire();
        List<String> before = children("job");

        assertThatThrownBy(() -> new ZkExclusiveLock(zk.newClient(), zk.path("job")).acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("lock '" + zk.path("job") + "' refused")
                .hasMessageContaining("InterProcessMutex")
                .hasMessageContaining("InterProcessSemaphoreMutex")
                .hasMessageContaining("ZkExclusiveLock.mutexLayout(client, path)")
                .satisfies(e -> assertThat(((ZkLockException) e).isCleanedUp()).isTrue());

        assertThat(children("job"))
                .as("only Curator's node and the mutex's container")
                .containsAll(before);
        assertThat(children("job/locks")).as("no node of the refused lock").isEmpty();
        curator.release();
    }

    @Test
    void mutexLayout_curatorSemaphoreMutexHolding_isRefusedNamingBothLayoutsAndTheFactory() throws Exception {
        InterProcessSemaphoreMutex curator = new InterProcessSemaphoreMutex(zk.newClient(), zk.path("job"));
        curator.acquire();

        assertThatThrownBy(() -> ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("job"))
                        .acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("lock '" + zk.path("job") + "' refused")
                .hasMessageContaining("new ZkExclusiveLock(client, path)");

        assertThat(children("job"))
                .as("no node of the refused lock beside the semaphore's (an empty 'locks' may have been reaped)")
                .contains("leases")
                .isSubsetOf("locks", "leases");
        curator.release();
    }

    @Test
    void bothZklockLayouts_eachHoldingFirst_theOtherIsRefused() throws Exception {
        assertRefusedBeside(
                new ZkExclusiveLock(zk.newClient(), zk.path("a")),
                ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("a")));
        assertRefusedBeside(
                ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("b")),
                new ZkExclusiveLock(zk.newClient(), zk.path("b")));
    }

    @Test
    void semaphoreAndReentrantLock_eachHoldingFirst_theOtherIsRefused() throws Exception {
        ZkSemaphore semaphore = new ZkSemaphore(zk.newClient(), zk.path("c"), 2);
        ZkReentrantLock reentrant = new ZkReentrantLock(zk.newClient(), zk.path("c"));
        ZkLease lease = semaphore.acquire();
        assertThatThrownBy(() -> reentrant.acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("a ZkSemaphore");
        lease.close();

        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("d"));
        other.acquire();
        assertThatThrownBy(() -> new ZkSemaphore(zk.newClient(), zk.path("d"), 2).acquire(5, TimeUnit.SECONDS))
                .isInstanceOf(ZkLockException.class)
                .hasMessageContaining("a ZkReentrantLock");
        other.release();
    }

    @Test
    void sameLayouts_shareThePathAsBefore() throws Exception {
        InterProcessLock[] mutexes = {
            ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("m")),
            new ZkReentrantLock(zk.newClient(), zk.path("m")),
            new InterProcessMutex(zk.newClient(), zk.path("m"))
        };
        InterProcessLock[] semaphoreMutexes = {
            new ZkExclusiveLock(zk.newClient(), zk.path("s")),
            ZkExclusiveLock.semaphoreMutex(zk.newClient(), zk.path("s")),
            new InterProcessSemaphoreMutex(zk.newClient(), zk.path("s"))
        };
        for (InterProcessLock[] locks : List.of(mutexes, semaphoreMutexes)) {
            for (InterProcessLock holder : locks) {
                holder.acquire();
                for (InterProcessLock other : locks) {
                    if (other != holder) {
                        assertThat(other.acquire(100, TimeUnit.MILLISECONDS))
                                .as("%s beside %s", other, holder)
                                .isFalse();
                    }
                }
                holder.release();
            }
        }
    }

    private void assertRefusedBeside(InterProcessLock holder, InterProcessLock other) throws Exception {
        holder.acquire();
        try {
            assertThatThrownBy(() -> other.acquire(5, TimeUnit.SECONDS))
                    .as("%s beside %s", other, holder)
                    .isInstanceOf(ZkLockException.class)
                    .hasMessageContaining("refused");
        } finally {
            holder.release();
        }
    }

    private List<String> children(String name) throws Exception {
        try {
            return observer.getChildren().forPath(zk.path(name));
        } catch (KeeperException.NoNodeException reaped) {
            return List.of(); // an empty container the server reaped
        }
    }
}
