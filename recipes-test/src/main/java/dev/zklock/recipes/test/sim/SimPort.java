package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.ClientPort;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.SessionPort;
import dev.zklock.recipes.locks.engine.TimerPort;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The engine's ports over one simulated client: the client ({@link ClientPort}: started, connected, its current session
 * as a {@link SimSession}, the background requests, its connection's changes told to the engine's {@code
 * ConnectionTracker} as Curator's connection-state listeners are told), and the seed's clock, timer and executor
 * ({@link TimerPort}: the world's time in nanoseconds, a task run as one of its events). Confined to the simulation's
 * one thread.
 */
final class SimPort implements ClientPort, TimerPort {
    private final SimWorld world;
    private final SimClient client;
    private SimSession session; // the current session's port, handed out again while it is current
    private final List<ConnectionStateListener> listeners = new ArrayList<>();
    private final Executor executor;

    SimPort(SimWorld world, SimClient client) {
        this.world = world;
        this.client = client;
        this.executor = task -> world.after(0, client.name + " runs a task off the event thread", task);
    }

    @Override
    public boolean isStarted() {
        return !client.isClosed();
    }

    @Override
    public boolean isConnected() {
        return client.isConnected();
    }

    @Override
    public SessionPort current() {
        long id = client.session();
        if (client.isClosed() || id == SimClient.NO_SESSION) {
            return null;
        }
        if (session == null || session.sessionId() != id) {
            session = new SimSession(world, client, id);
        }
        return session;
    }

    @Override
    public long requestTimeoutNanos() {
        return TimeUnit.MICROSECONDS.toNanos(world.requestTimeoutMicros);
    }

    @Override
    public TimerPort timer() {
        return this;
    }

    @Override
    public int sessionTimeoutMs() {
        return (int) (world.sessionTimeoutMicros / 1000);
    }

    /** The seed's events: a task runs after every event due now, on the simulation's thread. */
    @Override
    public Executor executor() {
        return executor;
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        listeners.add(listener);
    }

    /** Tells the listeners (the client's tracker) of a change of the connection, at once, in the order registered. */
    void tell(ConnectionState state) {
        world.note(client.name + " connection " + state);
        for (ConnectionStateListener listener : List.copyOf(listeners)) {
            listener.stateChanged(Simulation.NAMES, state);
        }
    }

    /** Curator's background create of the path and its parents: retried while the connection is lost. */
    @Override
    public void makeContainer(LockPath lock, Consumer<Code> made) {
        if (client.isClosed()) {
            throw new IllegalStateException("client for lock '" + lock.path() + "' is closed"); // as Curator's throws
        }
        client.whenConnected(() -> client.send(
                "makes " + lock.path(),
                server -> {
                    server.makePath(lock.path());
                    return SimServer.Result.of(Code.OK);
                },
                result -> {
                    if (result.code() == Code.CONNECTIONLOSS && !client.isClosed()) {
                        makeContainer(lock, made);
                    } else {
                        made.accept(result.code());
                    }
                }));
    }

    /** The simulated server keeps neither data nor ACLs: an empty node, open to all. */
    @Override
    public CreateRequest createRequest(LockPath lock, String nodePath, byte[] data, CreateMode mode) {
        return new CreateRequest(lock.fixed(nodePath), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, mode.toFlag());
    }

    @Override
    public void deleteInBackground(LockPath lock, String nodePath) {
        SimDeletes.delete(world, client, lock.fixed(nodePath));
    }

    @Override
    public void sweepInBackground(LockPath lock, String prefix) {
        SimDeletes.sweep(world, client, List.of(lock), prefix);
    }

    @Override
    public long read() {
        return TimeUnit.MICROSECONDS.toNanos(world.now());
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        SimTask scheduled = new SimTask(task);
        long micros = (Math.max(0, delayNanos) + 999) / 1000;
        world.after(micros, client.name + " timer", scheduled);
        return scheduled;
    }

    /** A task of the timer: runs once, unless cancelled first. */
    private static final class SimTask implements Runnable, Future<Object> {
        private final Runnable task;
        private boolean cancelled;
        private boolean done;

        SimTask(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (!cancelled && !done) {
                done = true;
                task.run();
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("a simulated timer task is not waited for");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a simulated timer task is not waited for");
        }
    }
}
