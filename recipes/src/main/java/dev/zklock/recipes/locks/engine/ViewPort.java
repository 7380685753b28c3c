package dev.zklock.recipes.locks.engine;

import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * A client whose sessions keep queue views ({@link ViewSession}): the port of a {@link ClientContext} made with queue
 * views on. Hands out one view session per session of the client, made when the session is first handed out and
 * dropped with it (a new session's views start empty, as its watches do); everything else is the client's port as it
 * is. Safe for use by multiple threads; no ZooKeeper call of its own.
 */
final class ViewPort implements ClientPort {
    private final ClientPort port;
    private ViewSession current; // guarded by this: the view session of the newest session handed out

    ViewPort(ClientPort port) {
        this.port = port;
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
            current = new ViewSession(session);
        }
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
