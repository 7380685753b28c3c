package dev.zklock.recipes.leader;

import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;

/**
 * A {@link ZkLeaderSelector} whose one term lasts until the test ends it: {@link #awaitLeading()} waits for the term to
 * begin, {@link #endTerm()} makes {@code takeLeadership} return.
 */
final class HeldSelector extends LeaderSelectorListenerAdapter {
    private final CountDownLatch leading = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    final ZkLeaderSelector selector;

    HeldSelector(CuratorFramework client, String path, String id) {
        this.selector = new ZkLeaderSelector(client, path, this);
        selector.setId(id);
    }

    @Override
    public void takeLeadership(CuratorFramework client) throws Exception {
        leading.countDown();
        done.await();
    }

    void awaitLeading() throws InterruptedException {
        leading.await();
    }

    void endTerm() {
        done.countDown();
    }
}
