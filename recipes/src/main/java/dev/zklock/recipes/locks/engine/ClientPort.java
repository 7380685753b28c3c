package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The engine's port to one client as its asynchronous runners see it: whether it is started and connected, its current
 * session ({@link SessionPort}), its timer, and the requests it makes in the background (a lock path made with its
 * parents, a delete retried until the connection comes back, a sweep for a lost create). The production adapter is
 * over the Curator client ({@code CuratorClientPort}), one per {@link ClientContext}; the simulator's is over a
 * simulated client. Reads local state only, but for what it sends; never blocks, but for the two waits of a runner
 * whose thread waits anyway ({@link BlockingRunner}): {@link #awaitConnected} and {@link #makeContainerNow}, which by
 * default wait through {@link Parking} (so a simulated thread parks through its port), and in production as Curator's
 * blocking calls did before the port. Implementations are safe for use by multiple threads.
 */
public interface ClientPort {
    /** Tells whether the client is started and not closed. */
    boolean isStarted();

    /** Tells whether the client is connected now. */
    boolean isConnected();

    /** Returns the client's current session, or null if there is none now or the client is closed. */
    SessionPort current();

    /** Returns the client's current session if it is connected, else null: what a step that sends needs. */
    default SessionPort connected() {
        return isConnected() ? current() : null;
    }

    /**
     * Waits at most {@code nanos} for the client to be connected or closed: no request. The caller asks again ({@link
     * #connected()}, {@link #isStarted()}) once it returns, so it may return early. By default the wait ends on the
     * client's {@link SessionEnds#onConnectedOrClosed} (the context of {@code lock}), parked through {@link Parking};
     * Curator's port blocks in {@code blockUntilConnected}.
     *
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    default void awaitConnected(LockPath lock, long nanos) throws InterruptedException {
        CompletableFuture<Void> connected = new CompletableFuture<>();
        SessionEnds.Registration waiting =
                lock.context().sessionEnds().onConnectedOrClosed(this, () -> connected.complete(null));
        try {
            Parking.get(connected, nanos);
        } catch (TimeoutException stillNotConnected) {
            // the caller asks again, and looks at its deadline
        } catch (ExecutionException e) {
            throw new AssertionError("a connection wait failed", e.getCause());
        } finally {
            waiting.cancel();
        }
    }

    /**
     * Returns one full request timeout of the client: the longest ZooKeeper's client waits for a reply before it fails
     * it with a lost connection.
     */
    long requestTimeoutNanos();

    /** The client's clock and timer. */
    TimerPort timer();

    /**
     * The session timeout the client negotiated last, in milliseconds; 0 before its first connection. What the
     * tracker's pause watch judges a gap by ({@link PauseWatch}).
     */
    int sessionTimeoutMs();

    /**
     * Where work that must not run on the thread that hands over replies and events runs (a hold lost on a watch's
     * news, the end of a reconnect's check): the common fork-join pool in production, the seed's events in the
     * simulator.
     */
    Executor executor();

    /**
     * Has {@code listener} told of every change of the client's connection (CONNECTED, SUSPENDED, RECONNECTED, LOST),
     * in order, as Curator's connection-state listeners are: how a client that is not Curator's tells its {@link
     * ConnectionTracker}. A Curator client's context registers its tracker with Curator itself.
     */
    void addConnectionStateListener(ConnectionStateListener listener);

    /**
     * Makes {@code lock}'s path as a container, parents included, in the background; tells {@code made} the result's
     * code (OK or NODEEXISTS: it stands).
     *
     * @throws RuntimeException the lock's error if the request cannot be sent
     */
    void makeContainer(LockPath lock, Consumer<Code> made);

    /**
     * Makes {@code lock}'s path as a container, parents included, and waits for the result on the calling thread (OK,
     * or NODEEXISTS: it stands), however long it takes: the caller bounds the wait ({@link SyncBound}). By default
     * {@link #makeContainer} waited for through {@link Parking}; Curator's port makes it with Curator's blocking
     * create, as Curator's locks do. One request when only the lock path is missing, more on first use of a path.
     *
     * @throws InterruptedException if the thread is interrupted while it waits
     * @throws RuntimeException the lock's error if the path could not be made ({@link LockPath#callFailure})
     */
    default void makeContainerNow(LockPath lock) throws InterruptedException {
        CompletableFuture<Code> made = new CompletableFuture<>();
        makeContainer(lock, made::complete);
        Code code;
        try {
            code = Parking.get(made);
        } catch (ExecutionException e) {
            throw new AssertionError("a ZooKeeper callback failed", e.getCause());
        }
        if (code != Code.OK && code != Code.NODEEXISTS) {
            throw lock.callFailure("create the lock path", KeeperException.create(code, lock.path()));
        }
    }

    /**
     * Returns the create request of {@code nodePath} (namespace-relative) with {@code data}, or the client's default
     * data if null, and the ACL the client gives new nodes: the template of {@code lock}'s nodes, asked for once.
     */
    CreateRequest createRequest(LockPath lock, String nodePath, byte[] data, CreateMode mode);

    /** Deletes {@code nodePath} (namespace-relative) in the background, again and again until it is done. */
    void deleteInBackground(LockPath lock, String nodePath);

    /** Finds and deletes, in the background, the nodes of {@code lock} a create with {@code prefix} may have made. */
    void sweepInBackground(LockPath lock, String prefix);
}
