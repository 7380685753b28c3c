package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.CohortSettings;
import java.time.Duration;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;

/**
 * The options every zklock lock builder shares: local hand-off among the threads of this process, and caching of an
 * idle node. Without them a built lock behaves exactly as one made with a constructor: every acquisition takes a node
 * of its own in the ZooKeeper queue.
 *
 * <h2>Local hand-off</h2>
 *
 * <p>The threads of this process that use one lock object queue locally behind a single node of the ZooKeeper queue
 * (lock cohorting). A release with a local waiter passes the lock to it, in FIFO order among the local waiters, with no
 * ZooKeeper request: the node stays, and {@code fencingToken()} grows by one with each pass ({@link FencingToken}), so a
 * fenced store tells a local holder's writes from the next one's. Every local grant (a pass, a read join, the idle
 * node) passes the check a new node's grant passes: while the connection is down the thread waits for it within its
 * timeout, and once the node is known gone (its own watch, a listing, LOST) local waiters queue again with a new node
 * ({@code AdmissionTest}). A revocation request ends local passing: the node goes after its current holder. While a waiter of
 * another session (or another lock object) is queued behind our node, the lock passes locally at most
 * {@code maxPasses} times and for at most {@code maxTime} since that waiter was first known; the next release then
 * deletes the node, and the remaining local waiters take one new node at the back of the queue. The lock learns of
 * such a waiter from one child watch on the lock path while it passes locally: one listing when it starts, and one more
 * per change of the lock path's children until a waiter shows, never one per pass. A read lock's threads share its
 * node only while the last listing found no writer queued behind it: after a change of the children, and after
 * {@code maxTime} of readers joining beside each other, a reader that comes waits for one listing before it joins, so
 * that a writer of another session gets in within about {@code maxTime} and a few round trips even while the local
 * readers keep every processor busy (one listing per {@code maxTime} while they overlap). Reentrancy, timeouts,
 * interrupts, hold states, metrics and interop with Curator's recipes on the same path are unchanged; a local waiter
 * that gives up leaves nothing behind, as it never had a node.
 *
 * <h2>Caching</h2>
 *
 * <p>With {@link #keepIdle(Duration)}, the last local release keeps the node for up to that time while no other
 * waiter is queued: an acquire by any thread of the process in that time takes the lock with no request. Another
 * waiter's arrival ends the caching at once, within one watch event and one delete; so does the end of the time, on the
 * client's timer thread. While a node is cached, its hold states (IN_DOUBT, LOST) are heard by the lock's listeners as
 * for a held node.
 *
 * <p>Builders are not thread-safe: confine one to a thread. {@code build()} makes no ZooKeeper call.
 *
 * @param <B> the builder's own type, returned by each option
 * @param <L> what the builder builds
 * @since 0.1.0
 */
public abstract class ZkLockBuilder<B extends ZkLockBuilder<B, L>, L> {
    private final CuratorFramework client;
    private final String path;
    private boolean localHandOff;
    private int maxPasses = CohortSettings.DEFAULT_MAX_PASSES;
    private Duration maxTime = CohortSettings.DEFAULT_MAX_TIME;
    private Duration keepIdle = Duration.ZERO;
    private boolean queueView;
    private String viewRoot; // the root of the queue view's watch: the lock path itself unless queueViewUnder said

    ZkLockBuilder(CuratorFramework client, String path) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = Checks.lockPath(path);
    }

    /**
     * Passes the lock locally among the threads of this process with the documented default bounds: at most 64 passes
     * and 5 ms once another waiter is known. See the class documentation.
     *
     * @return this builder
     */
    public B localHandOff() {
        return localHandOff(CohortSettings.DEFAULT_MAX_PASSES, CohortSettings.DEFAULT_MAX_TIME);
    }

    /**
     * Passes the lock locally among the threads of this process, at most {@code maxPasses} times in a row and for at
     * most {@code maxTime} once a waiter of another session is known. See the class documentation.
     *
     * @param maxPasses the most local passes in a row while another waiter is queued; at least 1
     * @param maxTime the longest the lock passes locally while another waiter is queued; positive
     * @return this builder
     * @throws IllegalArgumentException if {@code maxPasses} is less than 1 or {@code maxTime} is not positive
     * @throws NullPointerException if {@code maxTime} is null
     */
    public B localHandOff(int maxPasses, Duration maxTime) {
        Objects.requireNonNull(maxTime, "maxTime");
        Checks.requireArgument(maxPasses >= 1, "maxPasses must be at least 1, got %s", maxPasses);
        Checks.requireArgument(!maxTime.isNegative() && !maxTime.isZero(), "maxTime must be positive, got %s", maxTime);
        this.localHandOff = true;
        this.maxPasses = maxPasses;
        this.maxTime = maxTime;
        return self();
    }

    /**
     * Keeps the node for up to {@code keepIdle} after the last local release while no other waiter is queued, so that
     * the next acquire in this process costs no request; turns local hand-off on with its default bounds unless
     * {@link #localHandOff(int, Duration)} set others. See the class documentation.
     *
     * @param keepIdle how long an idle node is kept; zero releases it at once (the default)
     * @return this builder
     * @throws IllegalArgumentException if {@code keepIdle} is negative
     * @throws NullPointerException if {@code keepIdle} is null
     */
    public B keepIdle(Duration keepIdle) {
        Objects.requireNonNull(keepIdle, "keepIdle");
        Checks.requireArgument(!keepIdle.isNegative(), "keepIdle must not be negative, got %s", keepIdle);
        this.localHandOff = true;
        this.keepIdle = keepIdle;
        return self();
    }

    /**
     * Has the lock read its queue from a view the client keeps with one persistent recursive watch on the lock path
     * (ZooKeeper 3.6 or later), shared by every lock of the client built so on that path: after the view's first
     * listing, an acquisition's listing and its wait for the node ahead, and the watch that vouches for a held node,
     * are answered from the watch's events with no request. Opt-in; the node layout is unchanged, so the lock still
     * excludes Curator's recipe of the same layout, and every zklock lock with or without a view, on the path. Goes
     * with local hand-off: the cohort's node is taken and vouched for through the view.
     *
     * <p>Cost: an uncontended acquire and release, and a contended acquisition, cost a create and a delete (two
     * requests, against four with no view: the listing and the watches are gone); the client's first acquisition on
     * the path costs an addWatch and a listing more, and so does the first after each reconnect (events during an
     * outage are lost: nothing is granted from the view until a listing sent after the reconnect has rebuilt it, and
     * that listing vouches for the held nodes). Every client with a view hears of every create and delete on the path:
     * a path with many clients in its queue costs each of them one event per change, so with many clients contending
     * the view saves requests but not time (see {@code zklock bench --recipes queue-view}: its events per release grow
     * with the clients, and the default mode hands over faster). A registry's locks share one watch per client on
     * the registry's base path, whose events feed a view of each key's queue: at most one server watch per client for
     * the registry whatever its keys and waiters, and after a reconnect one multi read lists every key with waiters or
     * holds; but every client then hears of every change under the base path, on keys it does not wait on too. A view
     * with no waiter, no hold and no use for about one session timeout is dropped, and the watch is removed (one
     * request) once no path under it has a view. Requests and exclusion: {@code QueueViewTest},
     * {@code QueueViewLocksTest}; a registry's watch, resync and drop: {@code RegistryQueueViewTest}. Every
     * acquisition runs on ZooKeeper's callbacks, the calling thread parked once for the outcome.
     *
     * @return this builder
     */
    public B queueView() {
        this.queueView = true;
        return self();
    }

    /**
     * As {@link #queueView()}, with the watch on {@code root}, the lock path's parent: every lock of the client built
     * so under the same root shares one persistent recursive watch and one multi read per reconnect, as a
     * {@link ZkLockRegistry}'s keys do (for a registry of one's own, as Spring's is). Every client then hears of every
     * change under {@code root}, on other paths too: keep the root to the locks that use it.
     *
     * @param root the lock path's parent, absolute, relative to the client's namespace
     * @return this builder
     * @throws NullPointerException if {@code root} is null
     * @throws IllegalArgumentException if {@code root} is not the lock path's parent
     */
    public B queueViewUnder(String root) {
        Objects.requireNonNull(root, "root");
        String parent = ZKPaths.getPathAndNode(path).getPath();
        Checks.requireArgument(
                parent.equals(root), "queue view root '%s' is not the parent of lock path '%s'", root, path);
        this.queueView = true;
        this.viewRoot = root;
        return self();
    }

    /**
     * Builds the lock. No ZooKeeper call; the client need not be started yet.
     *
     * @return a new lock with this builder's options
     */
    public abstract L build();

    CuratorFramework client() {
        return client;
    }

    String path() {
        return path;
    }

    /** Tells whether the lock reads its queue from the client's queue view ({@link #queueView()}). */
    boolean usesQueueView() {
        return queueView;
    }

    /** The root of the queue view's watch: the lock path, unless {@link #queueViewUnder} named its parent. */
    String viewRoot() {
        return viewRoot != null ? viewRoot : path;
    }

    /** Returns the cohort settings, or null without local hand-off. */
    CohortSettings cohortSettings() {
        return localHandOff ? new CohortSettings(maxPasses, Checks.toNanos(maxTime), Checks.toNanos(keepIdle)) : null;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
