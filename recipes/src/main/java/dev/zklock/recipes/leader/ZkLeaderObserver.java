package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.LockPath;
import java.io.Closeable;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.api.CuratorListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * A watch on who leads an election, for anyone, participant or not: it tells a listener each {@link LeaderChanged},
 * the GRANTED and REVOKED of every term it sees, in order.
 *
 * <h2>Semantics</h2>
 *
 * <p>The leader is the participant whose node is first on the election's path, read as {@link ZkLeaderLatch#leader()}
 * reads it; the layout of latches and selectors alike, zklock's and Curator's. The observer tells a term's GRANTED
 * before its REVOKED, and that REVOKED before the next term's GRANTED
 * ({@code ZkLeaderObserverTest.observe_leadersClosedOneByOne_toldGrantedThenRevokedInOrder}), each once, on one thread
 * of the observer's own (never ZooKeeper's event thread), one at a time. It tells what it finds when it looks, not
 * every term there was: a term that begins and ends while it is cut off is never told. After a reconnect it lists the
 * path once and tells the REVOKED of a leader that is gone and the GRANTED of the one that stands, never a leader that
 * is no longer there ({@code ZkLeaderObserverTest.observe_afterAnOutage_reportsOnlyTheLeaderThatStands}).
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads. The listener runs on the observer's thread: it must not block it
 * for long, or later changes wait behind it.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <ul>
 *   <li>each look (at the start, when the leader's node goes, after a reconnect): one listing and one data read of the
 *       first node, which watches it (one more read per node at the front gone meanwhile); with no participant, one
 *       more listing that watches the path's children (or, with no path, one read that watches for its create);
 *   <li>while a leader leads: nothing but its node's watch. Only the leader's node is watched, so a participant that
 *       joins or leaves behind it costs the observer nothing, and one change of leader costs one watch event per
 *       observer, however many participants wait;
 *   <li>{@link #current()}: none; {@link #close()}: one watch removal, not waited for.
 * </ul>
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>While the client is disconnected the observer tells nothing (it cannot know); when the client is connected again,
 * on the same session or a new one, it looks once. It stops for good, with no watch and no thread left, when it is
 * closed or when its client closes ({@code ZkLeaderObserverTest.observe_whenTheClientCloses_stopsAndLeavesNoThread}).
 * A listener that throws is logged, and the observer goes on.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * try (ZkLeaderObserver observer = ZkLeaderObserver.observe(client, "/services/billing/leader",
 *         change -> log.info("{} {} with epoch {}", change.participant(), change.kind(), change.epoch()))) {
 *     dashboard.run();
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkLeaderObserver implements Closeable {
    private final CuratorFramework client;
    private final LockPath path;
    private final LeaderWatch watch;
    private final ConnectionStateListener connection;
    private final CuratorListener closing;

    private ZkLeaderObserver(CuratorFramework client, String electionPath, Consumer<LeaderChanged> listener) {
        this.client = client;
        this.path = new LockPath(client, electionPath, "", LockDriver.exclusive(), null);
        this.watch = new LeaderWatch(path, listener);
        this.connection = (c, state) -> {
            if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED) {
                watch.look(); // CONNECTED: the client's first connection, for an observer started before it
            }
        };
        this.closing = (c, event) -> {
            if (event.getType() == CuratorEventType.CLOSING) {
                watch.stop(false);
            }
        };
    }

    /**
     * Starts observing the election at {@code electionPath}: the first look is sent at once, and the listener hears
     * the GRANTED of the leader it finds, if any. Returns at once.
     *
     * @param client the client to use, started; its namespace applies
     * @param electionPath the path of a latch's or a selector's election, absolute
     * @param listener told each change, on the observer's thread
     * @return the observer, to close when done
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code electionPath} is not a valid ZooKeeper path
     * @throws IllegalStateException if the client is not started or is closed
     */
    public static ZkLeaderObserver observe(
            CuratorFramework client, String electionPath, Consumer<LeaderChanged> listener) {
        Objects.requireNonNull(client, "client");
        Checks.lockPath(electionPath);
        Objects.requireNonNull(listener, "listener");
        Checks.requireStarted(client, electionPath);
        ZkLeaderObserver observer = new ZkLeaderObserver(client, electionPath, listener);
        observer.start();
        return observer;
    }

    /**
     * Returns who leads the election at {@code electionPath} now, as one look of an observer but with no watch left:
     * for a tool that asks once ({@code LeaderReadTest.leaderOf_aLatchsPath_isWhatTheLatchSays}). Two round trips, as
     * {@link ZkLeaderLatch#leader()}.
     *
     * @param client the client to use, started; its namespace applies
     * @param electionPath the path of a latch's or a selector's election, absolute
     * @return the leader, or empty if no participant stands
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code electionPath} is not a valid ZooKeeper path
     * @throws IllegalStateException if the client is not started or is closed
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    public static Optional<Leader> leaderOf(CuratorFramework client, String electionPath) throws InterruptedException {
        Objects.requireNonNull(client, "client");
        Checks.lockPath(electionPath);
        return Participants.current(new LockPath(client, electionPath, "", LockDriver.exclusive(), null));
    }

    private void start() {
        client.getConnectionStateListenable().addListener(connection);
        try {
            client.getCuratorListenable().addListener(closing);
        } catch (UnsupportedOperationException namespaceView) {
            // A namespace view offers no close event: its client's close ends every session and the idle thread goes.
        }
        watch.look();
    }

    /**
     * Returns the leader as last told: the participant and epoch of the last GRANTED not yet REVOKED. For monitoring;
     * no ZooKeeper call.
     *
     * @return the leader, or empty if there is none or none was found yet
     */
    public Optional<Leader> current() {
        return watch.current();
    }

    /**
     * Stops observing: removes the observer's watch and tells the listener nothing more. Closing twice does nothing.
     * Waits for a listener under way, unless called from the listener itself.
     */
    @Override
    public void close() {
        client.getConnectionStateListenable().removeListener(connection);
        try {
            client.getCuratorListenable().removeListener(closing);
        } catch (UnsupportedOperationException namespaceView) {
            // nothing was added
        }
        watch.stop(true);
    }

    @Override
    public String toString() {
        return "ZkLeaderObserver[" + path.path() + ", "
                + current().map(Leader::toString).orElse("no leader") + "]";
    }
}
