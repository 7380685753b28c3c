package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lease whose node another client deletes right after the listing that granted it counted it (the partition rig saw
 * one: the stranger's delete ended 0.13 ms before the acquire returned, and the holder said HELD beside the next
 * session's lease to the end). A lease's own watch, sent right after its create's reply, vouches for it: the holder is
 * told LOST before another client can take the lease.
 */
@Timeout(60)
final class StrangerDeleteLeaseTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: holder H (client 1, a semaphore of one lease), a stranger (client 2), a next holder N (client 3).
     * Interleaving: H's lease is created and listed; the stranger deletes it before H's acquire returns; N acquires.
     * Allowed: H's acquire returns the deleted lease, told LOST before N's grant; or H's acquire hears of the delete
     * before it returns (the check that goes with the mutex's delete answered first) and enters again, and returns a
     * new lease that stands, which N waits for. Forbidden: H's lease HELD while N holds (two leases out of one).
     */
    @Test
    void leaseDeletedAfterItsListing_isLostBeforeTheNextClientHolds() throws Exception {
        String path = zk.path("semaphore");
        CuratorFramework stranger = zk.newClient();
        ZkSemaphore holder = new ZkSemaphore(zk.newClient(), path, 1);
        AtomicReference<String> deleted = new AtomicReference<>();
        holder.setHooks(new QueueHooks() {
            @Override
            public void entered(String lockPath, String ourNode, List<String> children) {
                if (deleted.compareAndSet(null, ourNode)) {
                    try {
                        stranger.delete().forPath(ZKPaths.makePath(lockPath, ourNode));
                    } catch (Exception e) {
                        throw new IllegalStateException("the stranger could not delete " + ourNode, e);
                    }
                }
            }
        });

        ZkLease lease = holder.acquire(10, TimeUnit.SECONDS);

        assertThat(lease).isNotNull();
        assertThat(deleted.get()).isNotNull();
        ZkSemaphore next = new ZkSemaphore(zk.newClient(), path, 1);
        if (lease.getNodeName().equals(deleted.get())) {
            await().until(() -> lease.state() == LockState.LOST);
            ZkLease nextLease = next.acquire(10, TimeUnit.SECONDS);
            assertThat(nextLease).isNotNull();
            assertThat(lease.state()).isEqualTo(LockState.LOST);
            nextLease.close();
        } else {
            assertThat(lease.state()).as("the lease H entered again for").isEqualTo(LockState.HELD);
            assertThat(next.acquire(200, TimeUnit.MILLISECONDS))
                    .as("N beside H's new lease")
                    .isNull();
            lease.close();
            ZkLease nextLease = next.acquire(10, TimeUnit.SECONDS);
            assertThat(nextLease).isNotNull();
            nextLease.close();
        }
        lease.close();
    }
}
