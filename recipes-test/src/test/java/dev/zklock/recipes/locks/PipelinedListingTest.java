package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The create of our node and the listing are sent back-to-back without waiting; ZooKeeper answers one session's
 * requests in order, so the listing must always hold the node. Checked over many tries, with other sessions creating
 * and deleting nodes on the same path at the same time.
 */
@Timeout(120)
final class PipelinedListingTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void enter_everyTry_listingAlreadyHoldsOurNode() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, zk.path("lock"));
        AtomicInteger tries = new AtomicInteger();
        AtomicInteger missing = new AtomicInteger();
        lock.setHooks(new QueueHooks() {
            @Override
            public void entered(String lockPath, String ourNode, List<String> children) {
                tries.incrementAndGet();
                if (!children.contains(ourNode)) {
                    missing.incrementAndGet();
                }
            }
        });
        ZkExclusiveLock other = ZkExclusiveLock.mutexLayout(zk.newClient(), zk.path("lock"));

        for (int i = 0; i < 1500; i++) {
            boolean otherHolds = i % 3 == 0 && other.acquire(java.time.Duration.ZERO);
            if (lock.acquire(java.time.Duration.ZERO)) {
                lock.release();
            }
            if (otherHolds) {
                other.release();
            }
        }

        assertThat(tries).hasValue(1500);
        assertThat(missing).hasValue(0);
    }
}
