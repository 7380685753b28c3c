package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/**
 * The nodes released from the front: named while their release runs and a second after it, that second on the
 * client's clock (the timer's), so that a simulated run keeps them as long whatever the machine that runs it.
 */
final class FrontNodesTest {
    private static final long RETENTION = TimeUnit.SECONDS.toNanos(1);

    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath path = new LockPath(client, "/locks/a", "lock-", LockDriver.exclusive(), null);
    private final ManualTimer clock = new ManualTimer();
    private final FrontNodes front = new FrontNodes(clock);

    @Test
    void released_keptForTheRetentionOnTheClientsClock_thenForgotten() {
        LockNode first = atFront("_c_a-lock-0000000001");
        LockNode second = atFront("_c_b-lock-0000000002");
        front.releasing(first);
        front.released(first);

        clock.advanceTo(RETENTION);
        front.releasing(second);
        front.released(second);
        assertThat(front.contains(first.name())).isTrue();

        clock.advanceTo(RETENTION + 1);
        front.releasing(second);
        front.released(second);
        assertThat(front.contains(first.name())).isFalse();
        assertThat(front.contains(second.name())).isTrue();
    }

    @Test
    void releasing_aNodeNotGrantedAtTheFront_isNotNamed() {
        LockNode behind = new LockNode(path, "_c_a-lock-0000000003", 100, 7);

        front.releasing(behind);

        assertThat(front.contains(behind.name())).isFalse();
    }

    private LockNode atFront(String name) {
        LockNode node = new LockNode(path, name, 100, 7);
        node.grantedAtFront();
        return node;
    }
}
