package dev.zklock.recipes.locks.engine;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The drive of a {@link StepMachine} with no thread waiting, shared by the lock queues' {@link CallbackRunner} and the
 * semaphore's {@link LeaseRunner}: each command is sent asynchronously and its reply or watch event is told to the
 * machine as the continuation, on ZooKeeper's event thread; the deadline comes from the client's timer; a step that
 * needs a connection waits for one with a connection state listener, and the watch set is kept for its removal. A
 * subclass says what each of its commands sends. Safe for use by multiple threads: the machine, the watch and the wait
 * for a connection are guarded by this object; continuations never block.
 */
abstract class AsyncSteps {
    private final LockPath first;
    private final Deadline deadline;
    private final StepMachine machine; // guarded by this
    private ConnectionStateListener resume; // guarded by this: waiting for a connection
    private SetWatch watch; // guarded by this: the watch set, until it fires or is removed

    /** @param first the path the machine's parents are made for, whose client and timer run the steps */
    AsyncSteps(LockPath first, Deadline deadline, StepMachine machine) {
        this.first = first;
        this.deadline = deadline;
        this.machine = machine;
    }

    /** Does one command of the machine (no request for {@link Command.Await}). */
    abstract void dispatch(Command command);

    /** Ends the steps on an error of one of them: cleans up, and fails with the error. */
    abstract void failed(Throwable e);

    final LockPath first() {
        return first;
    }

    /** Schedules the deadline (its timer cancelled once {@code outcome} completes) and sends the first command. */
    final void begin(CompletableFuture<?> outcome) {
        if (!deadline.isForever()) {
            Future<?> timer = first.context().timer().schedule(this::deadlinePassed, deadline.remainingNanos());
            if (timer != null) {
                outcome.whenComplete((end, failure) -> timer.cancel(false));
            }
        }
        Command command;
        synchronized (this) {
            command = machine.start();
        }
        execute(command);
    }

    /** Tells the machine {@code event} and does its answer. */
    final void feed(Event event) {
        Command command;
        synchronized (this) {
            command = machine.on(event);
        }
        execute(command);
    }

    /** Ends the machine from outside (an interrupt, a cancel, an error): its answer, what to clean up. */
    final synchronized Command abandonMachine(RuntimeException failure) {
        return machine.abandon(failure);
    }

    final synchronized boolean isOver() {
        return machine.isOver();
    }

    final void execute(Command command) {
        try {
            if (!(command instanceof Command.Await)) {
                dispatch(command);
            }
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    private void deadlinePassed() {
        Command command;
        synchronized (this) {
            command = machine.on(resume != null ? new Event.TimedOut() : new Event.DeadlinePassed());
        }
        execute(command);
    }

    /** Makes the path as a container, parents included; tells {@link Event.ParentsMade} or the failure. */
    final void makeParents() {
        try {
            first.client()
                    .create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .inBackground((c, event) -> {
                        Code code = Code.get(event.getResultCode());
                        feed(
                                code == Code.OK || code == Code.NODEEXISTS
                                        ? new Event.ParentsMade()
                                        : new Event.Failed(code));
                    })
                    .forPath(first.path(), new byte[0]);
        } catch (Exception e) {
            throw first.failure("create the path", e, true);
        }
    }

    /** Runs {@code step} on a connected session now, or as soon as the client reconnects (unless ended by then). */
    final void whenConnected(Consumer<ZooKeeperHandle> step) {
        CuratorFramework client = first.client();
        Checks.requireStarted(client, first.path());
        ZooKeeperHandle session =
                client.getZookeeperClient().isConnected() ? ZooKeeperHandle.currentQuietly(client) : null;
        if (session != null) {
            step.accept(session);
            return;
        }
        ConnectionStateListener once = new ConnectionStateListener() {
            @Override
            public void stateChanged(CuratorFramework changed, ConnectionState state) {
                if (state.isConnected() && resumeOnce(this)) {
                    try {
                        whenConnected(step);
                    } catch (RuntimeException | Error e) {
                        failed(e);
                    }
                }
            }
        };
        synchronized (this) {
            if (machine.isOver()) {
                return;
            }
            resume = once;
        }
        client.getConnectionStateListenable().addListener(once);
        if (client.getZookeeperClient().isConnected() && resumeOnce(once)) {
            whenConnected(step);
        }
    }

    /** Takes the waiting for a connection over, once: true for the first caller, while the machine goes on. */
    private boolean resumeOnce(ConnectionStateListener once) {
        synchronized (this) {
            if (resume != once) {
                return false;
            }
            resume = null;
        }
        first.client().getConnectionStateListenable().removeListener(once);
        return !isOver();
    }

    /**
     * Keeps {@code set} as the watch to remove at the end, unless the machine has ended or, for a node watch, no longer
     * sets it (then false: do not set it).
     */
    final synchronized boolean keepWatch(SetWatch set, StepMachine.Phase setIn) {
        if (machine.isOver() || (setIn != null && machine.phase() != setIn)) {
            return false;
        }
        watch = set;
        return true;
    }

    /** Forgets the watch that fired or failed to be set, if it is the one kept. */
    final synchronized void clearWatch(NodeWatcher fired) {
        if (watch != null && watch.watcher() == fired) {
            watch = null;
        }
    }

    /**
     * Cleans up what an end leaves on this client: removes the watch if one is set (one request, not waited for) and
     * stops waiting for a connection.
     */
    final void stopWaiting() {
        SetWatch set;
        ConnectionStateListener waiting;
        synchronized (this) {
            set = watch;
            waiting = resume;
            watch = null;
            resume = null;
        }
        if (set != null) {
            set.remove();
        }
        if (waiting != null) {
            first.client().getConnectionStateListenable().removeListener(waiting);
        }
    }
}
