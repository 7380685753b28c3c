package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The settle of a reconnect against the connection events that come after it, on a real server that the tests stop and
 * start. The tracker lists the session's nodes on RECONNECTED and settles the holds in doubt when the answer comes, on
 * another thread; the tests hold that settle in an executor of their own ({@link ConnectionTracker#settleOn}) while a
 * newer event comes, then run it.
 *
 * <p>Curator calls a client's connection listeners in no fixed order, so each test takes the tracker's own listener
 * off the client and puts one in its place that tells the tracker first and then the test: once the test hears of an
 * event, the tracker has handled it.
 */
@Timeout(120)
final class ConnectionTrackerSettleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private static final long WAIT_SECONDS = 30;

    /**
     * A suspension that comes while the check of the reconnect before it waits to settle.
     *
     * <p>Actors: Curator's connection thread (SUSPENDED, RECONNECTED and the tracker's moves), the settle (held by the
     * test, run on the test thread), the lock's state listener. Interleaving forced: SUSPENDED, RECONNECTED, the
     * listing of the session's nodes answered (the node stands), SUSPENDED again, then the settle runs; then
     * RECONNECTED and its settle.
     *
     * <table>
     *   <caption>outcomes once the held settle has run, the connection still down</caption>
     *   <tr><th>hold state</th><th>events heard</th><th>verdict</th></tr>
     *   <tr><td>IN_DOUBT</td><td>IN_DOUBT</td><td>allowed: the only one</td></tr>
     *   <tr><td>HELD</td><td>IN_DOUBT, HELD</td><td>forbidden: held while disconnected, and the second suspension
     *       never said IN_DOUBT (the bug: the settle moved the hold without looking at what came since)</td></tr>
     *   <tr><td>LOST</td><td>IN_DOUBT, LOST</td><td>forbidden: the node stands on a live session</td></tr>
     * </table>
     *
     * After the next reconnect's settle: HELD, events IN_DOUBT then HELD, and nothing else.
     */
    @Test
    void settle_afterANewerSuspension_leavesTheHoldInDoubt() throws Exception {
        Holder holder = new Holder();

        Runnable olderSettle = holder.outageHeldAtItsSettle(); // the node stood when it was listed
        zk.stopServer();
        holder.expect(ConnectionState.SUSPENDED);

        olderSettle.run();

        holder.assertState(LockState.IN_DOUBT, LockState.IN_DOUBT);
        zk.restartServer();
        holder.expect(ConnectionState.RECONNECTED);
        holder.settle().run();
        holder.assertState(LockState.HELD, LockState.IN_DOUBT, LockState.HELD);
        holder.lock.release();
    }

    /**
     * A whole outage (SUSPENDED, RECONNECTED) that comes while the check of the reconnect before it waits to settle,
     * with the node deleted by a stranger in between: only the newer check may settle the hold.
     *
     * <p>Actors: Curator's connection thread, the two settles (held by the test, run on the test thread), a second
     * client that deletes the lock's node, the lock's state listener. Interleaving forced: the connection dropped
     * (SUSPENDED, RECONNECTED), the listing answered (the node stands), the node deleted (the hold's own watch on it
     * taken away first, so that only the settles hear of it), the connection dropped again
     * (SUSPENDED, RECONNECTED, a listing without the node), then the older settle runs, connected on the node's
     * session, then the newer one.
     *
     * <table>
     *   <caption>outcomes after the older settle, then after the newer one</caption>
     *   <tr><th>after the older</th><th>after the newer</th><th>verdict</th></tr>
     *   <tr><td>IN_DOUBT</td><td>LOST</td><td>allowed: the only one</td></tr>
     *   <tr><td>HELD</td><td>HELD</td><td>forbidden: held on a deleted node, vouched for by a listing older than the
     *       last outage (a settle that looks only at the connection, not at its generation)</td></tr>
     * </table>
     */
    @Test
    void settle_afterANewerOutage_leavesTheHoldToTheNewerCheck() throws Exception {
        Holder holder = new Holder();
        String node = holder.lock.participantNodes().get(0);
        holder.withoutItsOwnWatch(node);

        Runnable olderSettle = holder.droppedAndHeldAtItsSettle();
        zk.newClient().delete().forPath(node);
        Runnable newerSettle = holder.droppedAndHeldAtItsSettle();

        olderSettle.run();

        holder.assertState(LockState.IN_DOUBT, LockState.IN_DOUBT);
        newerSettle.run();
        holder.assertState(LockState.LOST, LockState.IN_DOUBT, LockState.LOST);
        holder.lock.release();
    }

    /**
     * A session's end that comes while the check of a reconnect waits to settle: LOST is final.
     *
     * <p>Actors as above; interleaving forced: SUSPENDED, RECONNECTED, the listing answered (the node stands), the
     * session expired on the server (LOST), then the settle runs. Allowed: LOST, events IN_DOUBT then LOST. Forbidden:
     * HELD after LOST (a hold back on a node that went with its session), or any event after LOST.
     */
    @Test
    void settle_afterTheSessionIsLost_leavesTheHoldLost() throws Exception {
        Holder holder = new Holder();

        Runnable olderSettle = holder.outageHeldAtItsSettle();
        zk.expireSession(holder.client);
        await().until(() -> holder.lock.holdState().orElseThrow() == LockState.LOST);

        olderSettle.run();

        holder.assertState(LockState.LOST, LockState.IN_DOUBT, LockState.LOST);
        holder.lock.release();
    }

    /**
     * A client holding a lock, whose tracker's settles wait in {@link #settles} and whose connection states, each heard
     * once the tracker has handled it, wait in {@link #states}; and the lock's state events.
     */
    private static final class Holder {
        final CuratorFramework client = zk.newClient();
        final ZkExclusiveLock lock = ZkExclusiveLock.mutexLayout(client, zk.path("lock"));
        final List<LockStateEvent> events = new CopyOnWriteArrayList<>();
        final BlockingQueue<Runnable> settles = new LinkedBlockingQueue<>();
        final BlockingQueue<ConnectionState> states = new LinkedBlockingQueue<>();

        Holder() throws Exception {
            lock.addStateListener(events::add);
            ConnectionTracker tracker = ClientContext.of(client).tracker();
            tracker.settleOn(settles::add);
            client.getConnectionStateListenable().removeListener(tracker);
            client.getConnectionStateListenable().addListener((changed, state) -> {
                tracker.stateChanged(changed, state);
                states.add(state);
            });
            lock.acquire();
        }

        /**
         * Takes away the data watch the hold keeps on its own {@code node} ({@code OwnNodeWatch}), which would hear a
         * stranger's delete and make the hold LOST before any settle: whether it did so before the second outage's
         * check depended on whether its read was answered before the test's first drop (this test failed so, 1 run in
         * 3 under load). Waits for that read first: a later request on the session is answered after it.
         */
        void withoutItsOwnWatch(String node) throws Exception {
            client.checkExists().forPath(node);
            client.getZookeeperClient().getZooKeeper().removeAllWatches(node, Watcher.WatcherType.Data, false);
        }

        /** Stops and restarts the server within the session; returns the reconnect's settle, not yet run. */
        Runnable outageHeldAtItsSettle() throws Exception {
            zk.stopServer();
            expect(ConnectionState.SUSPENDED);
            zk.restartServer();
            expect(ConnectionState.RECONNECTED);
            return settle();
        }

        /** Drops the client's connection (the session stays); returns the reconnect's settle, not yet run. */
        Runnable droppedAndHeldAtItsSettle() throws InterruptedException {
            zk.dropConnection(client);
            expect(ConnectionState.SUSPENDED);
            expect(ConnectionState.RECONNECTED);
            return settle();
        }

        /** The settle of the last reconnect, once the session's nodes are listed. */
        Runnable settle() throws InterruptedException {
            Runnable settle = settles.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(settle).as("the settle of the last reconnect").isNotNull();
            return settle;
        }

        /** Takes the next connection state but the first connection's, which may reach the listener late. */
        void expect(ConnectionState expected) throws InterruptedException {
            ConnectionState next;
            do {
                next = states.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            } while (next == ConnectionState.CONNECTED);
            assertThat(next).isEqualTo(expected);
        }

        void assertState(LockState now, LockState... heard) {
            assertThat(lock.holdState()).contains(now);
            assertThat(events).extracting(LockStateEvent::state).containsExactly(heard);
        }
    }
}
