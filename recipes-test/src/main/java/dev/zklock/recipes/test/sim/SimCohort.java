package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LocalCommand;
import dev.zklock.recipes.locks.engine.LocalEvent;
import dev.zklock.recipes.locks.engine.LocalQueue;
import dev.zklock.recipes.locks.engine.LocalWaiter;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.RevocationWatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * One cohort lock object of one simulated client: the engine's own {@link LocalQueue} machine, driven as the engine's
 * {@code Cohort} runner drives it. A simulated thread asks for a hold and waits in the local queue; a grant is admitted
 * (the client's admission rule) before the thread holds, given back at its deadline while the rule says WAIT, told
 * back as GrantLost while it says LOST; a leader takes a node with an acquisition of its own (the engine's own
 * {@code CallbackRunner}, as a virtual thread takes it: {@link SimCallbackAcquire}); the machine's listings
 * carry a child watch, its node is watched for its deletion and for a revocation request, its idle node expires on the
 * clock. Records what the cohort itself learned of its nodes being gone, for the rule that nothing known gone is
 * granted, and checks the bounds of its local grants (revocation, conflicts behind). Not thread-safe.
 */
final class SimCohort {
    /** How a simulated thread's acquire ends. */
    interface Outcome {
        void held(Hold hold, String how);

        void ended(String why);
    }

    private final SimWorld world;
    private final SimChecker checker;
    private final boolean shared;
    private final SimClient client;
    private final LockPath path;
    private final LocalQueue queue;
    private final CohortSettings settings;
    private final String label;
    private final Map<LocalWaiter, Waiting> waiting = new LinkedHashMap<>(); // identity keys, insertion order
    private final Set<LockNode> knownGone = new HashSet<>();
    private final Map<LocalWaiter, LockNode> founders = new HashMap<>(); // readers that waited as a node was taken
    private final Set<LockNode> revoked = new HashSet<>(); // asked to let go, as the cohort heard it
    private final Map<LockNode, long[]> conflicts = new HashMap<>(); // since when a conflict is known, and passes since
    private Object idleTimer;

    private final class Waiting {
        final LocalWaiter waiter;
        final long deadline;
        final Outcome outcome;
        final String owner;
        boolean done;
        boolean acting; // its grant is being admitted, or its lead taken: a second look waits for that to end
        SimCallbackAcquire lead; // the acquisition of its lead, while it leads: the engine's own CallbackRunner

        Waiting(LocalWaiter waiter, long deadline, String owner, Outcome outcome) {
            this.waiter = waiter;
            this.deadline = deadline;
            this.owner = owner;
            this.outcome = outcome;
        }
    }

    SimCohort(
            SimWorld world,
            SimChecker checker,
            SimClient client,
            LockPath path,
            CohortSettings settings,
            boolean shared,
            String label) {
        this.world = world;
        this.checker = checker;
        this.shared = shared;
        this.client = client;
        this.path = path;
        this.settings = settings;
        this.queue = new LocalQueue(settings, shared, path.driver());
        this.label = label;
        client.addListener((node, state) -> {
            if (state == LockState.LOST) {
                if (!knownGone.contains(node)) {
                    run(new LocalEvent.NodeLost(node));
                }
            } else if (state == LockState.HELD) {
                run(new LocalEvent.Resumed(node));
            }
        });
    }

    /** Tells whether the cohort itself learned that {@code node} is gone (its watch, a listing, LOST). */
    boolean knowsGone(LockNode node) {
        return knownGone.contains(node) || client.stateOf(node) == LockState.LOST;
    }

    boolean isActive() {
        return queue.view().active();
    }

    /** A thread asks for a hold until {@code deadline}; {@code outcome} hears how it ends. */
    void acquire(String owner, long deadline, Outcome outcome) {
        LocalWaiter waiter = new LocalWaiter(Thread.currentThread());
        Waiting wait = new Waiting(waiter, deadline, owner, outcome);
        waiting.put(waiter, wait);
        if (deadline != SimAcquisition.FOREVER) {
            world.at(deadline, label + " " + owner + " local deadline", () -> deadlinePassed(wait));
        }
        run(new LocalEvent.Acquire(waiter, nanos()));
        look(wait);
    }

    /**
     * A thread interrupted while it waits: it leaves; a grant that came meanwhile, or that waits on the admission rule,
     * is passed on; a lead under way is abandoned (what it made is deleted) and handed on.
     */
    void interrupt(String owner) {
        for (Waiting wait : List.copyOf(waiting.values())) {
            if (!wait.owner.equals(owner) || wait.done) {
                continue;
            }
            if (wait.lead != null) {
                wait.lead.abandon(); // its end tells the machine LeadEnded
            } else if (wait.acting) {
                release(wait.waiter.hold()); // as an interrupt of the admission's wait: the grant is passed on
                finish(wait, null, "interrupted");
            } else {
                run(new LocalEvent.GiveUp(wait.waiter, true));
                if (wait.waiter.status() == LocalWaiter.Status.GRANTED) {
                    release(wait.waiter.hold()); // granted as the interrupt came: passed on, the interrupt wins
                }
                finish(wait, null, "interrupted");
            }
        }
    }

    void release(Hold hold) {
        run(new LocalEvent.Release(hold.node(), nanos()));
    }

    /** A holder of {@code node} took ({@code +1}) or ended ({@code -1}) a read node beside it, as LockCore tells. */
    void beside(LockNode node, int delta) {
        run(new LocalEvent.Beside(node, delta));
    }

    /** A look at a waiter's status, as its thread does when it wakes: grant, lead, or wait on. */
    private void look(Waiting wait) {
        if (wait.done || wait.acting) {
            return;
        }
        LocalWaiter.Status status = wait.waiter.status();
        if (status == LocalWaiter.Status.GRANTED) {
            wait.acting = true;
            admit(wait);
        } else if (status == LocalWaiter.Status.LEAD) {
            wait.acting = true;
            lead(wait);
        }
    }

    private void deadlinePassed(Waiting wait) {
        if (wait.done || wait.acting || wait.waiter.status() != LocalWaiter.Status.WAITING) {
            return;
        }
        run(new LocalEvent.GiveUp(wait.waiter, false));
        if (wait.waiter.status() == LocalWaiter.Status.WAITING) {
            finish(wait, null, "timed out");
        } else {
            look(wait); // granted, or made leader, as the deadline passed: one check, or one whole try
        }
    }

    private void admit(Waiting wait) {
        Hold hold = wait.waiter.hold();
        SimAdmission.whenDecided(
                world,
                client,
                List.of(hold.node()),
                wait.deadline,
                () -> !wait.done
                        && wait.waiter.status() == LocalWaiter.Status.GRANTED
                        && wait.waiter.hold().node() == hold.node(),
                verdict -> admitted(wait, hold, verdict));
    }

    private void admitted(Waiting wait, Hold hold, Admission.Verdict verdict) {
        switch (verdict) {
            case ADMIT -> finish(wait, hold, "local grant");
            case LOST -> {
                run(new LocalEvent.GrantLost(wait.waiter, hold.node()));
                wait.acting = false;
                look(wait);
            }
            case CLOSED -> {
                release(hold);
                finish(wait, null, "client closed");
            }
            default -> {
                release(hold);
                finish(wait, null, "timed out");
            }
        }
    }

    private void lead(Waiting wait) {
        wait.lead = SimCallbackAcquire.queues(
                world,
                client,
                List.of(path),
                wait.deadline,
                label + " " + wait.owner + " leads",
                new SimAcquisition.Outcome() {
                    @Override
                    public void granted(List<LockNode> nodes) {
                        wait.lead = null;
                        if (shared) {
                            for (LocalWaiter waiter : waiting.keySet()) {
                                if (waiter != wait.waiter && waiter.status() == LocalWaiter.Status.WAITING) {
                                    founders.put(waiter, nodes.get(0)); // as the machine counts them
                                }
                            }
                        }
                        run(new LocalEvent.NodeTaken(wait.waiter, nodes.get(0), nanos()));
                        watchForRevocation(nodes.get(0));
                        finish(wait, new Hold(nodes.get(0), 0), "lead");
                    }

                    @Override
                    public void ended(String why) {
                        wait.lead = null;
                        run(new LocalEvent.LeadEnded(wait.waiter));
                        finish(wait, null, why);
                    }
                });
        wait.lead.start();
    }

    private void finish(Waiting wait, Hold hold, String how) {
        if (wait.done) {
            return;
        }
        wait.done = true;
        waiting.remove(wait.waiter);
        if (hold != null) {
            wait.outcome.held(hold, how);
        } else {
            wait.outcome.ended(how);
        }
    }

    private void run(LocalEvent event) {
        List<LocalWaiter> ungranted = new ArrayList<>();
        for (LocalWaiter waiter : waiting.keySet()) {
            if (waiter.status() != LocalWaiter.Status.GRANTED) {
                ungranted.add(waiter);
            }
        }
        List<LocalCommand> out = new ArrayList<>(4);
        queue.on(event, out);
        for (LocalWaiter waiter : ungranted) {
            if (waiter.status() == LocalWaiter.Status.GRANTED) {
                checkVouched(waiter.hold().node());
            }
        }
        for (LocalCommand command : out) {
            execute(command);
        }
    }

    private void execute(LocalCommand command) {
        if (command instanceof LocalCommand.Wake wake) {
            if (wake.waiter().status() == LocalWaiter.Status.GRANTED) {
                LockNode node = wake.waiter().hold().node();
                checkBounds(node, founders.remove(wake.waiter()) == node);
            }
            Waiting wait = waiting.get(wake.waiter());
            if (wait != null) {
                world.after(world.delay(1, 20), label + " wakes " + wait.owner, () -> look(wait));
            }
        } else if (command instanceof LocalCommand.List list) {
            listWithWatch(list.node());
        } else if (command instanceof LocalCommand.WatchNode watchNode) {
            watchOwnNode(watchNode.node());
        } else if (command instanceof LocalCommand.StopWatching stop) {
            world.server.removeWatch(path.path(), stop.watcher(), true);
        } else if (command instanceof LocalCommand.End end) {
            client.untrack(end.node());
            world.releasing(List.of(end.node()));
            SimDeletes.deleteLater(world, client, List.of(end.node()));
        } else if (command instanceof LocalCommand.KeepIdle keep) {
            Object timer = new Object();
            idleTimer = timer;
            LockNode kept = keep.node();
            world.after(keep.nanos() / 1000, label + " idle time over", () -> {
                if (idleTimer == timer) {
                    run(new LocalEvent.IdleExpired(kept));
                }
            });
        } else if (command instanceof LocalCommand.CancelIdle) {
            idleTimer = null;
        } else if (command instanceof LocalCommand.Lose lose) {
            knownGone.add(lose.node());
            client.lose(lose.node());
        } else {
            throw new AssertionError("the simulation cannot " + command);
        }
    }

    private void listWithWatch(LockNode node) {
        if (!client.isConnected() || client.session() != node.sessionId()) {
            world.after(
                    1,
                    label + " cannot list",
                    () -> run(new LocalEvent.ListingFailed(node, Code.CONNECTIONLOSS, nanos())));
            return;
        }
        Watcher watcher = event -> {}; // the identity the machine may ask to remove
        SimServer.Watch watch = client.watch(watcher, type -> {
            if (type != EventType.None) {
                run(new LocalEvent.ChildrenChanged(node));
            }
        });
        client.send(label + " lists with a child watch", server -> server.children(path.path(), watch), result -> {
            if (result.ok()) {
                if (!result.children().contains(node.name())) {
                    knownGone.add(node);
                } else if (conflictBehind(result.children(), node)) {
                    conflicts.putIfAbsent(node, new long[] {nanos(), 0});
                }
                run(new LocalEvent.Listed(node, result.children(), watcher, nanos()));
            } else {
                run(new LocalEvent.ListingFailed(node, result.code(), nanos()));
            }
        });
    }

    /** As the runner's own-node watch: the node's deletion, or its read's answer, goes to the machine. */
    private void watchOwnNode(LockNode node) {
        if (!client.isConnected() || client.session() != node.sessionId()) {
            world.after(
                    1, label + " cannot watch its own node", () -> run(new LocalEvent.NodeWatchFailed(node, nanos())));
            return;
        }
        SimServer.Watch watch = client.watch(new Object(), type -> {
            if (type == EventType.NodeDeleted) {
                knownGone.add(node);
                run(new LocalEvent.NodeDeleted(node));
            } else if (type == EventType.NodeDataChanged) {
                watchOwnNode(node);
            }
        });
        client.send(label + " watches its own node", server -> server.data(SimClient.fullPath(node), watch), result -> {
            if (result.code() == Code.NONODE) {
                knownGone.add(node);
                run(new LocalEvent.NodeDeleted(node));
            } else if (result.ok()) {
                run(new LocalEvent.NodeWatched(node, nanos()));
            } else {
                run(new LocalEvent.NodeWatchFailed(node, nanos()));
            }
        });
    }

    /**
     * As the engine's {@code RevocationWatch} on a node just granted to a revocable lock (the simulated cohorts all
     * are): a data watch, read again at each change, that tells the machine of a revocation request.
     */
    private void watchForRevocation(LockNode node) {
        if (!client.isConnected() || client.session() != node.sessionId()) {
            return;
        }
        String own = SimClient.fullPath(node);
        SimServer.Watch watch = client.watch(new Object(), type -> {
            if (type == EventType.NodeDataChanged) {
                watchForRevocation(node);
            }
        });
        boolean[] asked = new boolean[1];
        client.send(
                label + " watches its node for revocation",
                server -> {
                    SimServer.Node standing = server.node(own);
                    asked[0] = standing != null && Arrays.equals(standing.data, RevocationWatch.REVOKE_MESSAGE);
                    return server.data(own, watch);
                },
                result -> {
                    if (result.ok() && asked[0] && revoked.add(node)) {
                        run(new LocalEvent.Revoked(node)); // as the engine's RevocationWatch tells the cohort
                    }
                });
    }

    /**
     * Tells whether the listing shows a node behind ours that conflicts with the cohort: any, for an exclusive or write
     * cohort; a writer's, for a read cohort.
     */
    private boolean conflictBehind(List<String> children, LockNode node) {
        List<String> sorted = path.driver().sort(children);
        for (String behind : sorted.subList(sorted.indexOf(node.name()) + 1, sorted.size())) {
            if (!shared || behind.contains("__WRIT__")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The machine's decision to grant {@code node} locally (a pass, a join, an idle node taken): if a stranger deleted
     * it, a watch the cohort set with a read that found the node must have fired with the delete, its event still on
     * its way (ZooKeeper hands an event over before any later reply). A grant with none went on a node nothing vouched
     * for: it might never hear that the node is gone, and hold beside whoever got the lock next.
     */
    private void checkVouched(LockNode node) {
        if (checker.deletedByStranger(node)
                && !client.hearsOf(SimClient.fullPath(node))
                && !client.hearsOf(node.lockPath())) {
            checker.violation(
                    "%s granted %s locally, which a stranger deleted, with no watch event of it on its way",
                    label, node.name());
        }
    }

    /**
     * A local grant of {@code node}: none once the cohort heard a revocation request, none to a reader once a writer is
     * known behind (but to one that waited as the node was taken), and, once a conflicting node is known behind, at
     * most the pass bound, within the time bound.
     */
    private void checkBounds(LockNode node, boolean founder) {
        if (revoked.contains(node)) {
            checker.violation("%s passed %s after it was asked to let it go", label, node.name());
        }
        long[] conflict = conflicts.get(node);
        if (conflict == null) {
            return;
        }
        conflict[1]++;
        if (shared) {
            if (!founder) { // one that waited as the node was taken ranks with it, ahead of the writer
                checker.violation("%s let a reader join %s with a writer known behind it", label, node.name());
            }
        } else if (conflict[1] > settings.maxPasses() || nanos() - conflict[0] >= settings.maxTimeNanos()) {
            checker.violation(
                    "%s passed %s %d times over %d µs with a conflict known behind it (bounds: %d passes, %d µs)",
                    label,
                    node.name(),
                    conflict[1],
                    (nanos() - conflict[0]) / 1000,
                    settings.maxPasses(),
                    settings.maxTimeNanos() / 1000);
        }
    }

    private long nanos() {
        return world.now() * 1000;
    }

    @Override
    public String toString() {
        return label + " " + queue.view() + " idle " + settings.keepIdleNanos();
    }
}
