package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Graceful hand-over of {@link ZkLeaderSelector}: {@code yield()} and the shutdown hook, with the meaning the latch's
 * have ({@link LeaderHandOverTest}).
 */
@Timeout(60)
final class SelectorHandOverTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * Actors: selector a leading, selector b queued behind it, neither auto-requeued. a yields. Allowed: a's term
     * interrupted, b's term with a larger epoch, a queued behind b and leading again when b yields in turn. Forbidden:
     * b's term before a's ended; a out of the election after its yield.
     */
    @Test
    void yield_ofTheLeader_passesLeadershipToTheNext() throws Exception {
        String path = zk.path("leader");
        Turns a = new Turns(zk.newClient(), path, "a");
        a.selector.start();
        long aEpoch = a.nextTerm();
        Turns b = new Turns(zk.newClient(), path, "b");
        b.selector.start();
        await().until(() -> b.selector.getParticipants().size() == 2);

        assertThat(a.selector.yield()).isTrue();

        long bEpoch = b.nextTerm();
        assertThat(a.endedBefore(b)).as("a's term over before b's began").isTrue();
        assertThat(bEpoch).isGreaterThan(aEpoch);
        await().until(() ->
                a.selector.getParticipants().equals(List.of(new Participant("b", true), new Participant("a", false))));
        assertThat(a.selector.hasLeadership()).isFalse();
        assertThat(a.selector.yield()).as("a does not lead: nothing to yield").isFalse();
        assertThat(b.selector.yield()).isTrue();
        assertThat(a.nextTerm()).isGreaterThan(bEpoch);
        a.selector.close();
        b.selector.close();
        await().until(() -> a.selector.getParticipants().isEmpty());
    }

    @Test
    void yield_ofASelectorAlone_leadsAgainWithALargerEpoch() throws Exception {
        Turns alone = new Turns(zk.newClient(), zk.path("leader"), "alone");
        assertThatThrownBy(alone.selector::yield)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("LATENT")
                .hasMessageContaining(zk.path("leader"));
        alone.selector.start();
        long first = alone.nextTerm();

        alone.selector.yield();

        assertThat(alone.nextTerm()).isGreaterThan(first);
        alone.selector.close();
        assertThatThrownBy(alone.selector::yield)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED");
    }

    /**
     * Actors: selector a leading with a shutdown hook, selector b queued behind it. The test runs a's hook as the JVM
     * would at exit. Allowed: a's term over and its node deleted before the hook returns, b leading, the hook
     * unregistered; and a selector closed before exit leaves no hook registered. Forbidden: a hook left registered
     * after the close; a's node outliving the hook.
     */
    @Test
    void closeOnShutdown_hookClosesTheSelectorAndCloseRemovesIt() throws Exception {
        String path = zk.path("leader");
        Turns a = new Turns(zk.newClient(), path, "a");
        assertThat(a.selector.closeOnShutdown()).isSameAs(a.selector);
        a.selector.start();
        a.nextTerm();
        Turns b = new Turns(zk.newClient(), path, "b");
        b.selector.start();
        await().until(() -> b.selector.getParticipants().size() == 2);
        Thread hook = a.selector.shutdownHook();

        hook.run();

        assertThat(a.ended.getCount()).as("a's term over when the hook returns").isZero();
        assertThat(b.selector.getParticipants()).containsExactly(new Participant("b", true));
        b.nextTerm();
        assertThat(Runtime.getRuntime().removeShutdownHook(hook))
                .as("hook still registered")
                .isFalse();

        Turns c = new Turns(zk.newClient(), path, "c");
        c.selector.closeOnShutdown();
        c.selector.closeOnShutdown(); // a second call does nothing
        Thread cHook = c.selector.shutdownHook();
        c.selector.start();
        c.selector.close();
        assertThat(c.selector.shutdownHook()).isNull();
        assertThat(Runtime.getRuntime().removeShutdownHook(cHook))
                .as("hook still registered")
                .isFalse();
        assertThatThrownBy(c.selector::closeOnShutdown)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CLOSED")
                .hasMessageContaining(path);
        b.selector.close();
    }

    /** A selector whose terms each last until interrupted, recording each term's epoch and when it ended. */
    static final class Turns extends LeaderSelectorListenerAdapter {
        final ZkLeaderSelector selector;
        final BlockingQueue<Long> epochs = new LinkedBlockingQueue<>();
        final CountDownLatch ended = new CountDownLatch(1); // the first term ended
        private volatile long endNanos;
        private volatile long startNanos;

        Turns(CuratorFramework client, String path, String id) {
            selector = new ZkLeaderSelector(client, path, this);
            selector.setId(id);
        }

        @Override
        public void takeLeadership(CuratorFramework client) {
            startNanos = System.nanoTime();
            epochs.add(selector.epoch());
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                endNanos = System.nanoTime();
                ended.countDown();
            }
        }

        long nextTerm() throws InterruptedException {
            Long epoch = epochs.poll(30, TimeUnit.SECONDS);
            assertThat(epoch).as("a term of '%s' within 30 s", selector.getId()).isNotNull();
            return epoch;
        }

        boolean endedBefore(Turns next) {
            return endNanos != 0 && endNanos < next.startNanos;
        }
    }
}
