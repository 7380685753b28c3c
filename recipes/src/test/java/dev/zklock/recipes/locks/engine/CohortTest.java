package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cohort's runner without ZooKeeper (the leader's entry hands out nodes; the client is never started, so no
 * request is sent): what a notifier does while a local thread holds the cohort's JVM lock. Outcome table: a thread holds
 * the lock; ZooKeeper's event thread (here, another thread) brings news. Allowed: the notifier returns at once, and the
 * news is applied by the lock's holder when it lets go. Forbidden: the notifier waits for the lock (every watch of the
 * client would queue behind a user thread), or the news is lost.
 */
@Timeout(30)
final class CohortTest {
    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath path = new LockPath(client, "/locks/a", "lock-", LockDriver.exclusive(), null);
    private final AtomicInteger taken = new AtomicInteger();

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void notifications_whileALocalThreadHoldsTheLock_returnAtOnceAndAreAppliedWhenItLetsGo() throws Exception {
        Cohort cohort = new Cohort(
                path,
                deadline -> Optional.of(node(taken.incrementAndGet())),
                new CohortSettings(64, 5_000_000, 0),
                false);
        Hold first = cohort.acquire(Deadline.forever()).orElseThrow();

        cohort.lock.lock();
        try {
            CompletableFuture<Void> news = CompletableFuture.runAsync(() -> {
                cohort.stateChanged(first.node(), LockState.LOST);
                cohort.revocationRequested(first.node());
            });
            news.get(10, TimeUnit.SECONDS); // returned while the lock is held
        } finally {
            cohort.lock.unlock();
        }

        assertThat(cohort.node()).isNull(); // the news was applied: the lost node is dropped
        cohort.release(first); // the lost hold ends on its own
        Hold next = cohort.acquire(Deadline.forever()).orElseThrow();
        assertThat(next.node().name()).isEqualTo(node(2).name()); // a new node
        cohort.release(next);
        assertThat(cohort.isActive()).isFalse();
    }

    private LockNode node(int sequence) {
        return new LockNode(path, String.format("_c_a-lock-%010d", sequence), 100 + sequence, 7);
    }
}
