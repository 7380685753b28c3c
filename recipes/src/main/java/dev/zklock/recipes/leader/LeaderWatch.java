package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.Reply;
import dev.zklock.recipes.locks.engine.ZooKeeperHandle;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The looks and watches of one {@link ZkLeaderObserver}, on one serial executor. Safe for use by multiple threads.
 *
 * <pre>
 * Implementation notes.
 *
 * 1. Every look runs on the serial executor (a thread of the observer's own that goes after a second idle), and so
 *    does every call of the listener: ZooKeeper's event thread and Curator's connection thread only ask for a look.
 *    Looks asked for while one is queued are one look (pending), so a reconnect whose watch events fire beside its
 *    RECONNECTED lists once.
 * 2. A look lists the path and reads the first node's data with a watch (a data read: on a node gone meanwhile it
 *    fails and leaves no watch; the next node is read then). The first node standing leads; its term is its node, its
 *    epoch FencingToken.of(czxid, 0). A term other than the one told is told REVOKED, then the new one GRANTED: the
 *    order of ZkLeaderObserverTest.observe_leadersClosedOneByOne_toldGrantedThenRevokedInOrder.
 * 3. Only the leader's node is watched while there is one (no herd: a change behind it costs nothing); with none, the
 *    path's children are (or, with no path, its create), so the first participant is seen.
 * 4. The watches set are kept with their session and their kind (confined to the serial executor): one path can
 *    have both, a data watch from an exists that found the path and a child watch from a later look, and a delete
 *    fires both. So the close removes each one left (one request each, not waited for); a new session has none of the
 *    old one's (ZkLeaderObserverTest.observe_afterItsSessionEnds_watchesOnTheNewSession).
 * 5. A look that fails with the connection tells nothing: the RECONNECTED that follows asks for a look. But a look
 *    that gives a reply up after one request timeout may have lost no connection: the reply is only late (a network
 *    that held it, ZooKeeper's event thread held up by a slow callback, this JVM paused between its arrival and the
 *    wait's end), no RECONNECTED comes, and no watch was set. So the reply's coming, late or failed, asks for a look
 *    (ZkLeaderObserverTest.observe_aReplyLaterThanItsWait_looksAgainWhenItComes; PartitionsIT once found an observer
 *    two terms behind a session timeout after a heal, without it).
 * </pre>
 */
final class LeaderWatch {
    private static final Logger logger = LoggerFactory.getLogger(LeaderWatch.class);

    private final LockPath path;
    private final String fixedPath;
    private final Consumer<LeaderChanged> listener;
    private final ThreadPoolExecutor serial;
    private final Watcher watcher = this::fired;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final Set<String> dataWatches = new HashSet<>(); // confined to serial: fixed paths with a data watch
    private final Set<String> childWatches = new HashSet<>(); // confined to serial: fixed paths with a child watch
    private volatile Thread running; // the serial executor's thread while it runs a task
    private volatile boolean stopped;
    private volatile Leader told; // the term told GRANTED and not yet REVOKED; written on the serial executor only
    private String toldNode; // confined to serial: the node of that term
    private long watchSession; // confined to serial: the session the watches were set on

    LeaderWatch(LockPath path, Consumer<LeaderChanged> listener) {
        this.path = path;
        this.fixedPath = path.fixed(path.path());
        this.listener = listener;
        this.serial = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "zklock-leader-observer " + path.path());
            thread.setDaemon(true);
            return thread;
        });
        serial.allowCoreThreadTimeOut(true);
    }

    /** Asks for a look, unless one is queued already. Never blocks. */
    void look() {
        if (!stopped && pending.compareAndSet(false, true)) {
            post(() -> {
                pending.set(false);
                lookNow();
            });
        }
    }

    Optional<Leader> current() {
        return Optional.ofNullable(told);
    }

    /**
     * Stops: the listener hears nothing more, and with {@code removeWatches} each watch left is removed, waited for
     * unless called on the observer's own thread; the thread then ends. Without (the client is closing, and its
     * session with it), never waits: the client's close is not held up by a look under way.
     */
    void stop(boolean removeWatches) {
        stopped = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            serial.execute(() -> {
                ZooKeeperHandle session = removeWatches ? ZooKeeperHandle.currentQuietly(path.client()) : null;
                if (session != null && session.sessionId() == watchSession) {
                    dataWatches.forEach(node -> path.removeWatch(session, node, watcher, false));
                    childWatches.forEach(node -> path.removeWatch(session, node, watcher, true));
                }
                forgetWatches();
                told = null;
                done.complete(null);
            });
        } catch (RejectedExecutionException stoppedBefore) {
            return;
        }
        serial.shutdown();
        if (removeWatches && Thread.currentThread() != running) {
            done.join();
        }
    }

    /** On ZooKeeper's event thread: asks for a look, and forgets the watch that fired. */
    private void fired(WatchedEvent event) {
        Watcher.Event.EventType type = event.getType();
        if (type == Watcher.Event.EventType.None
                || type == Watcher.Event.EventType.DataWatchRemoved
                || type == Watcher.Event.EventType.ChildWatchRemoved) {
            return;
        }
        String node = event.getPath();
        post(
                () -> { // a delete fires both kinds; a create or a data change a data watch (exists sets one)
                    if (type != Watcher.Event.EventType.NodeChildrenChanged) {
                        dataWatches.remove(node);
                    }
                    if (type == Watcher.Event.EventType.NodeChildrenChanged
                            || type == Watcher.Event.EventType.NodeDeleted) {
                        childWatches.remove(node);
                    }
                });
        look();
    }

    private void lookNow() {
        if (stopped) {
            return;
        }
        ZooKeeperHandle session =
                path.client().getZookeeperClient().isConnected() ? ZooKeeperHandle.currentQuietly(path.client()) : null;
        if (session == null) {
            return; // RECONNECTED asks again
        }
        if (session.sessionId() != watchSession) {
            forgetWatches();
            watchSession = session.sessionId();
        }
        Reply listing = reply(session.children(fixedPath));
        if (!(listing instanceof Reply.Children children) && listing.code() != Code.NONODE) {
            logger.debug("{}: the observer could not list the election: {}", path.path(), listing.code());
            return;
        }
        List<String> names = listing instanceof Reply.Children c ? c.children() : List.of();
        for (String name : path.driver().sort(names)) {
            String node = ZKPaths.makePath(fixedPath, name);
            Reply read = reply(session.readData(node, watcher));
            if (read instanceof Reply.Data data) {
                dataWatches.add(node);
                String id = data.data() == null ? "" : new String(data.data(), StandardCharsets.UTF_8);
                tell(node, new Leader(id, FencingToken.of(data.stat().getCzxid(), 0)));
                return;
            }
            if (read.code() != Code.NONODE) {
                return;
            }
        }
        tell(null, null);
        watchForAParticipant(session);
    }

    private void watchForAParticipant(ZooKeeperHandle session) {
        Reply children = reply(session.watchChildren(fixedPath, watcher));
        if (children instanceof Reply.Children c) {
            childWatches.add(fixedPath);
            if (!c.children().isEmpty()) {
                look(); // one joined since the listing
            }
        } else if (children.code() == Code.NONODE) {
            Reply exists = reply(session.watchExists(fixedPath, watcher));
            if (exists.code() == Code.OK || exists.code() == Code.NONODE) {
                dataWatches.add(fixedPath);
            }
            if (exists.code() == Code.OK) {
                look(); // made since the listing
            }
        }
    }

    private void forgetWatches() {
        dataWatches.clear();
        childWatches.clear();
    }

    private void tell(String node, Leader leader) {
        if (java.util.Objects.equals(node, toldNode)) {
            return;
        }
        Leader ended = told;
        told = leader;
        toldNode = node;
        if (ended != null) {
            call(LeaderChanged.revoked(ended));
        }
        if (leader != null) {
            call(LeaderChanged.granted(leader));
        }
    }

    private void call(LeaderChanged change) {
        if (stopped) {
            return;
        }
        try {
            listener.accept(change);
        } catch (RuntimeException e) {
            logger.warn("{}: the leader observer's listener threw on {}", path.path(), change, e);
        }
    }

    /**
     * The reply, or a lost connection if none comes within one request timeout (note 5): the look is given up, and
     * another is asked for when the reply comes after all.
     */
    private Reply reply(CompletableFuture<Reply> sent) {
        try {
            return sent.get(path.requestTimeoutNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Reply.Failed(Code.CONNECTIONLOSS);
        } catch (TimeoutException e) {
            sent.whenComplete((late, failure) -> look());
            return new Reply.Failed(Code.CONNECTIONLOSS);
        } catch (ExecutionException e) {
            return new Reply.Failed(Code.CONNECTIONLOSS);
        }
    }

    private void post(Runnable task) {
        try {
            serial.execute(() -> {
                running = Thread.currentThread();
                try {
                    task.run();
                } catch (RuntimeException | Error e) {
                    logger.error("{}: the leader observer failed to look", path.path(), e);
                } finally {
                    running = null;
                }
            });
        } catch (RejectedExecutionException stopped) {
            logger.debug("{}: the leader observer is stopped", path.path());
        }
    }
}
