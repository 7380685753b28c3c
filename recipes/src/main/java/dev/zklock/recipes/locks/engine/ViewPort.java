package dev.zklock.recipes.locks.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * A client whose sessions keep queue views ({@link ViewSession}): the port of a {@link ClientContext} made with queue
 * views on. Hands out one view session per session of the client, made when the session is first handed out and
 * dropped with it (a new session's views start empty, as its watches do); knows the roots registries gave (each a
 * base path whose children are lock paths, all under one watch); and has the client's timer drop the current session's
 * idle views, about every half session timeout while it keeps any, so that a registry of many keys keeps views and
 * watches only for the keys in use. Everything else is the client's port as it is. Safe for use by multiple threads;
 * no ZooKeeper call of its own (a drop removes a root's watch: {@link ViewSession#dropIdle}).
 */
final class ViewPort implements ClientPort {
    private final ClientPort port;
    private final Set<String> roots = ConcurrentHashMap.newKeySet(); // fixed paths; one per registry, never dropped
    private ViewSession current; // guarded by this: the view session of the newest session handed out
    private boolean sweeping; // guarded by this: a drop of idle views is scheduled on the timer

    ViewPort(ClientPort port) {
        this.port = port;
    }

    /** Makes {@code root} (fixed for the namespace) the root of every lock path that is its child. */
    void addRoot(String root) {
        roots.add(root);
    }

    /** Tells whether {@code path} is a root a registry gave. */
    boolean isRoot(String path) {
        return roots.contains(path);
    }

    /** The timer's time now. */
    long now() {
        return port.timer().read();
    }

    /** How long a view stays unused before it is dropped: one session timeout. */
    long idleNanos() {
        return TimeUnit.MILLISECONDS.toNanos(port.sessionTimeoutMs());
    }

    /** Drops the idle views of the current session, and schedules the next drop while anything is left. */
    private void sweep() {
        ViewSession swept;
        synchronized (this) {
            swept = current;
        }
        SessionPort live = port.current();
        boolean more;
        if (live == null) {
            more = port.isStarted(); // no session to send a removal on now: look again later
        } else if (live.sessionId() != swept.sessionId()) {
            more = false; // the session ended: its watches went with it
        } else {
            more = swept.dropIdle(now(), idleNanos());
        }
        synchronized (this) {
            sweeping = false;
            scheduleSweep(more || current != swept);
        }
    }

    /** Schedules a drop if {@code needed} and none is. Guarded by this. */
    private void scheduleSweep(boolean needed) {
        if (needed && !sweeping) {
            sweeping = port.timer().schedule(this::sweep, idleNanos() / 2) != null;
        }
    }

    @Override
    public boolean isStarted() {
        return port.isStarted();
    }

    @Override
    public boolean isConnected() {
        return port.isConnected();
    }

    @Override
    public synchronized SessionPort current() {
        SessionPort session = port.current();
        if (session == null) {
            return null;
        }
        if (current == null || current.sessionId() != session.sessionId()) {
            current = new ViewSession(session, this);
        }
        scheduleSweep(true);
        return current;
    }

    /** The client's own wait (a view keeps no connection of its own). */
    @Override
    public void awaitConnected(LockPath lock, long nanos) throws InterruptedException {
        port.awaitConnected(lock, nanos);
    }

    @Override
    public long requestTimeoutNanos() {
        return port.requestTimeoutNanos();
    }

    @Override
    public TimerPort timer() {
        return port.timer();
    }

    @Override
    public int sessionTimeoutMs() {
        return port.sessionTimeoutMs();
    }

    @Override
    public Executor executor() {
        return port.executor();
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        port.addConnectionStateListener(listener);
    }

    @Override
    public void makeContainer(LockPath lock, Consumer<Code> made) {
        port.makeContainer(lock, made);
    }

    @Override
    public void makeContainerNow(LockPath lock) throws InterruptedException {
        port.makeContainerNow(lock);
    }

    @Override
    public CreateRequest createRequest(LockPath lock, String nodePath, byte[] data, CreateMode mode) {
        return port.createRequest(lock, nodePath, data, mode);
    }

    @Override
    public void deleteInBackground(LockPath lock, String nodePath) {
        port.deleteInBackground(lock, nodePath);
    }

    @Override
    public void sweepInBackground(LockPath lock, String prefix) {
        port.sweepInBackground(lock, prefix);
    }
}
