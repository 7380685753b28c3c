package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockTimeoutException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The drive of a {@link StepMachine} with no thread waiting, shared by the lock queues' {@link CallbackRunner} and the
 * semaphore's {@link LeaseRunner}: each command is sent asynchronously and its reply or watch event is told to the
 * machine as the continuation, on ZooKeeper's event thread; the deadline comes from the client's timer; a step that
 * needs a connection waits for one ({@link SessionEnds#onConnectedOrClosed}), and the watch set is kept for its removal. A
 * subclass says what each of its commands sends. The steps are their own outcome, a future that completes with their
 * end (one object fewer for each waiting thread than a future of their own). Safe for use by multiple threads: the
 * machine, the watch and the wait for a connection are guarded by this object; continuations never block.
 *
 * @param <T> what the outcome completes with
 */
abstract class AsyncSteps<T> extends CompletableFuture<T> implements NodeWatcher.Listener {
    private final Deadline deadline;
    private final StepMachine machine; // guarded by this
    private Resume resume; // guarded by this: waiting for a connection
    private NodeWatcher watch; // guarded by this: the watch set, until it fires or is removed
    private final RequestTally tally; // the requests of the acquisition that made these steps, if recorded; else null

    final Deadline deadline() {
        return deadline;
    }

    /** The machine; guarded by this. */
    final StepMachine machine() {
        return machine;
    }

    AsyncSteps(Deadline deadline, StepMachine machine) {
        this.deadline = deadline;
        this.machine = machine;
        this.tally = RequestTally.current();
    }

    /**
     * What a caller that waits for these steps on its thread makes of their failure: empty when the deadline ended them
     * ({@link LockTimeoutException}), else the failure itself, thrown.
     *
     * @param what the acquire, for the error of a checked failure (which the steps never make)
     */
    static <T> Optional<T> timedOutOrThrown(Throwable failure, String what) {
        if (failure instanceof LockTimeoutException) {
            return Optional.empty();
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        throw new AssertionError(what + " failed", failure);
    }

    /** Does one command of the machine (no request for {@link Command.Await}). */
    abstract void dispatch(Command command);

    /** Ends the steps on an error of one of them: cleans up, and fails with the error. */
    abstract void failed(Throwable e);

    /**
     * The path the machine's parents are made for, whose client and timer run the steps; a subclass keeps it where it
     * keeps its paths (a waiting thread keeps a word fewer).
     */
    abstract LockPath first();

    /**
     * Schedules the deadline and, one request timeout after it, the end of any wait for a reply (both timers cancelled
     * once the outcome completes), and sends the first command.
     */
    final void begin() {
        if (!deadline.isForever()) {
            TimerPort timer = first().port().timer();
            long remaining = deadline.remainingNanos();
            Future<?> passed = timer.schedule(this::deadlinePassed, remaining);
            // A request sent as the connection drops, while the client still counts as connected (its Disconnected
            // event is told after the failed requests' callbacks), waits in ZooKeeper's client until it has connected
            // again or given up: seconds after the deadline, or never while the server cannot be reached. A reply still
            // awaited one request timeout after the deadline is not waited for, as a blocking acquire waits for none
            // past it (Deadline#await): the steps give up, and the cleanup of what they made goes on in the background.
            // Counted from the deadline, not from now: steps begun after it (a semaphore's lease step, once its mutex
            // came late) get what is left of the request timeout past it (the simulator's seed 628,996 with views).
            Future<?> over = timer.schedule(
                    () -> feed(new Event.TimedOut()), deadline.remainingNanosPlus(first().requestTimeoutNanos()));
            whenComplete((end, failure) -> {
                if (passed != null) {
                    passed.cancel(false);
                }
                if (over != null) {
                    over.cancel(false);
                }
            });
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
        RequestTally outer = tally == null ? null : RequestTally.enter(tally);
        try {
            if (!(command instanceof Command.Await)) {
                dispatch(command);
            }
        } catch (RuntimeException | Error e) {
            failed(e);
        } finally {
            if (tally != null) {
                RequestTally.enter(outer);
            }
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
        first().port()
                .makeContainer(
                        first(),
                        code -> feed(
                                code == Code.OK || code == Code.NODEEXISTS
                                        ? new Event.ParentsMade()
                                        : new Event.Failed(code)));
    }

    /**
     * Runs {@code step} on a connected session now, or as soon as the client is connected again (unless ended by then).
     * The wait ends at the deadline (even one whose timer ran while a request was in flight: it is checked here too),
     * and when the client closes, whose check then fails the steps with {@link IllegalStateException}.
     */
    final void whenConnected(Consumer<SessionPort> step) {
        ClientPort client = first().port();
        if (!client.isStarted()) {
            throw Checks.notStarted(first().client(), first().path(), null);
        }
        SessionPort session = client.connected();
        if (session != null) {
            step.accept(session);
            return;
        }
        Resume waiting = new Resume(step);
        synchronized (this) {
            if (machine.isOver()) {
                return;
            }
            resume = waiting;
        }
        waiting.listen(first().context().sessionEnds().onConnectedOrClosed(client, waiting));
        if (deadline.hasPassed() && resumeOnce(waiting)) {
            feed(new Event.TimedOut());
        }
    }

    /** Takes the waiting for a connection over, once: true for the first caller, while the machine goes on. */
    private boolean resumeOnce(Resume waiting) {
        synchronized (this) {
            if (resume != waiting) {
                return false;
            }
            resume = null;
        }
        waiting.cancel();
        return !isOver();
    }

    /** A step waiting for a connection: run when the client is connected, or closed (then its check fails). */
    private final class Resume implements Runnable {
        private final Consumer<SessionPort> step;
        private volatile SessionEnds.Registration registration;
        private volatile boolean cancelled;

        Resume(Consumer<SessionPort> step) {
            this.step = step;
        }

        void listen(SessionEnds.Registration made) {
            registration = made;
            if (cancelled) {
                made.cancel();
            }
        }

        void cancel() {
            cancelled = true;
            SessionEnds.Registration made = registration;
            if (made != null) {
                made.cancel();
            }
        }

        @Override
        public void run() {
            if (resumeOnce(this)) {
                try {
                    whenConnected(step);
                } catch (RuntimeException | Error e) {
                    failed(e);
                }
            }
        }
    }

    /**
     * Keeps {@code set} as the watch to remove at the end, unless the machine has ended or, for a node watch, no longer
     * sets it (then false: do not set it).
     */
    final synchronized boolean keepWatch(NodeWatcher set, StepMachine.Phase setIn) {
        if (machine.isOver() || (setIn != null && machine.phase() != setIn)) {
            return false;
        }
        watch = set;
        return true;
    }

    /**
     * A watch of these steps fired: it is forgotten, and the machine told. Woken because our own node went, the watch
     * has not fired: it goes from the server too (one request, not waited for).
     */
    @Override
    public final void woken(NodeWatcher watcher, NodeWatcher.Wake why) {
        clearWatch(watcher);
        if (why == NodeWatcher.Wake.OWN_GONE) {
            watcher.remove();
        }
        feed(wokenEvent(watcher, why));
    }

    /**
     * What the machine is told of {@code watcher}'s wake-up: by default, that it woke, with nothing to vouch for our own
     * node.
     */
    Event wokenEvent(NodeWatcher watcher, NodeWatcher.Wake why) {
        return why == NodeWatcher.Wake.OWN_GONE ? new Event.OwnGone() : new Event.Woken(why);
    }

    /** Forgets the watch that fired or failed to be set, if it is the one kept. */
    final synchronized void clearWatch(NodeWatcher fired) {
        fired.close();
        if (watch == fired) {
            watch = null;
        }
    }

    /**
     * Cleans up what an end leaves on this client: removes the watch if one is set (one request, not waited for) and
     * stops waiting for a connection.
     */
    final void stopWaiting() {
        NodeWatcher set;
        Resume waiting;
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
            waiting.cancel();
        }
    }
}
