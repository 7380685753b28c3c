package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.Acquisition;
import dev.zklock.recipes.locks.engine.Command;
import dev.zklock.recipes.locks.engine.Event;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.NodeWatcher;
import java.util.List;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * The mirror of a runner, for the one acquire the simulator does not run the engine's own runner for: a read node taken
 * beside a write node of its own (the engine's {@link Acquisition}, which the engine runs on its blocking runner, which
 * parks). Each command is sent
 * ({@link SimRequests}), each reply and watch event told back; the deadline from the clock (DeadlinePassed while a
 * request is in flight, TimedOut while waiting, and TimedOut one request timeout after it whatever is in flight); a step
 * that needs a connection waits for one; a watch's waiter hears of its session's end. A grant is then tracked and
 * admitted as {@code Admission.admitLater} does ({@link SimAdmission}): it enters again with a new node while the rule
 * says LOST, and gives up on a closed client or at its deadline. The lock queues' callback runner and the semaphore's
 * lease runner run for real ({@link SimCallbackAcquire}). Not thread-safe.
 */
final class SimAcquisition {
    /** How the acquisition ends. */
    interface Outcome {
        /** The nodes are held, tracked and admitted. */
        void granted(List<LockNode> nodes);

        /** It ended without them: a timeout, the client closed, or an error; nothing of it is left behind. */
        void ended(String why);
    }

    static final long FOREVER = Long.MAX_VALUE;

    private final SimWorld world;
    private final SimClient client;
    private final List<LockPath> queues;
    private final long deadline;
    private final Outcome outcome;
    private final String label;
    private SimMachine machine;
    private final LockNode alongside; // the write node it is taken beside, which must not be LOST at any take
    private boolean waiting; // for a watch or a connection: the deadline ends it
    private boolean deadlineTold;
    private boolean ended;
    private boolean abandoned;
    private List<LockNode> admitting; // granted, waiting on the admission rule
    private long createSession;
    private Object watch; // the watch set and not yet fired, or null
    private SimOwnWatch ownWatch; // the watch on our own node in the queue waited on, once a wait needs one
    private String watchedPath;

    SimAcquisition(
            SimWorld world,
            SimClient client,
            List<LockPath> queues,
            LockNode alongside,
            long deadline,
            String label,
            Outcome outcome) {
        this.world = world;
        this.client = client;
        this.queues = List.copyOf(queues);
        this.alongside = alongside;
        this.deadline = deadline;
        this.label = label;
        this.outcome = outcome;
    }

    void start() {
        if (deadline != FOREVER) {
            world.at(deadline, label + " deadline", this::deadlinePassed);
            world.at(deadline + world.requestTimeoutMicros, label + " a request timeout after the deadline", () -> {
                if (machine != null && !machine.isOver()) {
                    feed(new Event.TimedOut());
                }
            });
        }
        enter();
    }

    /**
     * Ends the acquisition from outside (an interrupt, a cancel): what it made is deleted. While its grant waits on the
     * admission rule, the grant is dropped, as an interrupt of {@code Admission.await} does.
     */
    void abandon() {
        if (machine == null || ended) {
            return;
        }
        abandoned = true;
        if (admitting != null) {
            SimAdmission.drop(world, client, admitting);
            end("interrupted");
            return;
        }
        execute(machine.abandon(null));
    }

    private void enter() {
        if (client.stateOf(alongside) == LockState.LOST) {
            // As the engine's LockPath.acquireAlongside checks before every take: no read node beside a lost write
            end("error: the hold it would be taken beside was lost");
            return;
        }
        admitting = null;
        machine = SimMachine.queue(queues, alongside);
        deadlineTold = false;
        execute(machine.start());
    }

    private void deadlinePassed() {
        if (machine != null && !machine.isOver()) {
            feed(waiting ? new Event.TimedOut() : new Event.DeadlinePassed());
        }
    }

    private void feed(Event event) {
        feed(machine, event);
    }

    /** Tells {@code target} an event; a machine replaced since (entered again after a lost grant) hears no more. */
    private void feed(SimMachine target, Event event) {
        if (target != machine) {
            return;
        }
        if (!deadlineTold && deadline != FOREVER && world.now() >= deadline && !(event instanceof Event.TimedOut)) {
            deadlineTold = true;
            Command answer = machine.on(new Event.DeadlinePassed());
            if (!(answer instanceof Command.Await)) {
                execute(answer);
                return;
            }
        }
        execute(machine.on(event));
    }

    private void execute(Command command) {
        if (command instanceof Command.Await) {
            return;
        }
        if (command instanceof Command.Create create) {
            connected(() -> create(create));
        } else if (command instanceof Command.ListQueue list) {
            SimMachine target = machine;
            connected(() -> SimRequests.list(client, label, path(list.queue()), event -> feed(target, event)));
        } else if (command instanceof Command.Watch watchCommand) {
            connected(() -> setWatch(watchCommand));
        } else if (command instanceof Command.Recover) {
            SimMachine target = machine;
            long session = createSession;
            connected(() -> SimRequests.recoveryListing(client, label, queues, session, event -> feed(target, event)));
        } else if (command instanceof Command.CheckOwner check) {
            SimMachine target = machine;
            connected(() -> SimRequests.checkOwner(
                    client, label, path(check.queue()), check.name(), event -> feed(target, event)));
        } else if (command instanceof Command.MakeParents) {
            connected(() -> {
                for (LockPath queue : queues) {
                    world.server.makePath(queue.path());
                }
                feed(new Event.ParentsMade());
            });
        } else if (command instanceof Command.Delete delete) {
            SimDeletes.deleteLater(world, client, delete.nodes());
            feed(new Event.Deleted());
        } else if (command instanceof Command.Granted granted) {
            stopWatching();
            for (int i = 0; i < granted.nodes().size(); i++) {
                if (granted.front().get(i)) {
                    granted.nodes().get(i).grantedAtFront(); // as QueueRequests marks it
                }
            }
            admit(granted.nodes());
        } else if (command instanceof Command.GiveUp giveUp) {
            stopWatching();
            cleanUp(giveUp.nodes(), giveUp.sweepPrefix());
            end(
                    giveUp.failure() != null
                            ? "error: " + giveUp.failure().getMessage()
                            : abandoned ? "interrupted" : "timed out");
        } else if (command instanceof Command.CleanUp cleanUp) {
            cleanUp(cleanUp.nodes(), cleanUp.sweepPrefix());
        } else {
            throw new AssertionError("the simulation cannot " + command);
        }
    }

    /** Deletes {@code nodes} and sweeps for a lost create's {@code prefix} (if not null), without waiting. */
    private void cleanUp(List<LockNode> nodes, String prefix) {
        SimDeletes.deleteLater(world, client, nodes);
        SimDeletes.sweep(world, client, queues, prefix);
    }

    /** Runs a step on a connected session; waits for one (the deadline ends the wait); fails on a closed client. */
    private void connected(Runnable step) {
        if (client.isClosed()) {
            end("client closed");
            execute(machine.abandon(null));
            return;
        }
        if (client.isConnected()) {
            step.run();
            return;
        }
        waiting = true;
        SimMachine waitingSimMachine = machine;
        client.whenConnected(() -> {
            if (machine != waitingSimMachine || machine.isOver()) {
                return;
            }
            waiting = false;
            connected(step);
        });
        if (deadline != FOREVER && world.now() >= deadline) {
            waiting = false;
            feed(new Event.TimedOut());
        }
    }

    private void create(Command.Create create) {
        SimMachine target = machine;
        long session = client.session();
        createSession = session;
        String alongside = create.alongsideSequence();
        String name = alongside == null ? create.prefix() : create.prefix() + alongside;
        List<String> parents = queues.stream().map(LockPath::path).toList();
        List<String> names = parents.stream().map(parent -> name).toList();
        send(create.prefix(), session, parents, names, alongside == null, target);
    }

    /**
     * Sends one create transaction and the listing of every queue behind it; the listing is told only once our nodes
     * are known made.
     */
    private void send(
            String prefix,
            long session,
            List<String> parents,
            List<String> names,
            boolean sequential,
            SimMachine target) {
        client.send(
                label + " creates " + prefix,
                server -> SimRequests.createAll(server, session, parents, names, sequential),
                result -> {
                    Event created = SimRequests.created(result, queues, session);
                    if (target.isOver()) {
                        execute(target.on(created)); // after the end: what it made is cleaned up, or swept for
                    } else {
                        feed(target, created);
                    }
                });
        Consumer<Event> listed = listing -> {
            if (target == machine && machine.isEntering()) {
                feed(target, listing); // as the runners: the listing goes on only after our nodes were made
            }
        };
        SimRequests.listAll(client, label, queues, listed);
    }

    private void setWatch(Command.Watch command) {
        Object watcher = new Object();
        String node = path(command.queue()) + "/" + command.name();
        SimMachine waitingSimMachine = machine;
        SimOwnWatch own = null;
        if (command.vouch()) { // first the watch on our own node, as the runners send it (Acquisition, note 7)
            LockNode ours = machine.ourNode(command.queue());
            ownWatch = SimOwnWatch.vouching(ownWatch, client, label, path(command.queue()) + "/" + ours.name(), ours);
            own = ownWatch;
        }
        SimOwnWatch vouching = own;
        SimServer.Watch registered = client.watch(watcher, type -> {
            if (watch == watcher) {
                clearWatch();
                if (type != EventType.NodeDeleted) {
                    feed(new Event.Woken(NodeWatcher.Wake.CHANGED));
                    return;
                }
                NodeWatcher.Wake wake = world.releasedFromFront.contains(command.name())
                        ? NodeWatcher.Wake.DELETED_FROM_FRONT
                        : NodeWatcher.Wake.DELETED;
                feed(vouching == null ? new Event.Woken(wake) : vouching.news(wake));
            }
        });
        client.send(label + " watches " + command.name(), server -> server.data(node, registered), result -> {
            if (machine != waitingSimMachine || machine.isOver()) {
                world.server.removeWatch(node, watcher, false);
                return;
            }
            if (result.ok()) {
                watch = watcher;
                watchedPath = node;
                waiting = true;
                client.onSessionEnd(watcher, () -> {
                    if (watch == watcher) {
                        clearWatch();
                        feed(new Event.Woken(NodeWatcher.Wake.SESSION_ENDED));
                    }
                });
                feed(new Event.WatchSet());
                if (vouching != null) {
                    vouching.whileWaiting(() -> {
                        if (watch == watcher) { // our node went while we waited: the watch ahead goes too
                            stopWatching();
                            feed(new Event.OwnGone());
                        }
                    });
                }
            } else if (result.code() == Code.NONODE) {
                boolean fromFront = world.releasedFromFront.contains(command.name());
                feed(vouching == null ? new Event.WatchedGone(fromFront) : vouching.goneAhead(fromFront));
            } else {
                feed(new Event.Failed(result.code()));
            }
        });
    }

    private void clearWatch() {
        if (watch != null) {
            client.cancelSessionEnd(watch);
        }
        watch = null;
        waiting = false;
    }

    private void stopWatching() {
        if (watch != null) {
            world.server.removeWatch(watchedPath, watch, false);
            clearWatch();
        }
    }

    /** Tracks and admits the nodes granted, as {@code Admission.admitLater} does. */
    private void admit(List<LockNode> nodes) {
        admitting = nodes;
        SimMachine granting = machine;
        SimAdmission.admit(
                world,
                client,
                nodes,
                deadline,
                label,
                () -> !ended && machine == granting,
                () -> {
                    ended = true;
                    outcome.granted(nodes);
                },
                this::enter,
                this::end);
    }

    private void end(String why) {
        if (!ended) {
            ended = true;
            outcome.ended(why);
        }
    }

    private String path(int queue) {
        return queues.get(queue).path();
    }
}
