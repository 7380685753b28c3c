package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import java.lang.reflect.Field;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import kotlin.Unit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuarantee;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;

/**
 * A cohort and its surroundings without ZooKeeper, for model checking the runner ({@link Cohort}) with Lincheck: the
 * leader's entry hands out nodes of a client that is never started (so no request is ever sent: every listing fails
 * with CONNECTIONLOSS, no watch is set, an end only deletes in the model), a scripted {@link Cohort.Admitter} admits,
 * and the world keeps the truth that the checks compare the cohort with: which nodes exist, which threads are in their
 * critical section and on which hold, the newest fencing token of a live exclusive hold.
 *
 * <p>Checks, each an {@link AssertionError} on the thread that sees it (Lincheck then reports the interleaving):
 *
 * <ul>
 *   <li>no grant is admitted, and no critical section entered or left, on a node the cohort has already ended;
 *   <li>exclusive: two live holds (neither LOST) are never inside at once, and each live hold's token is larger than
 *       every token before it;
 *   <li>no node is ended twice; once every thread is done, no event is left in the cohort's inbox, the cohort is idle
 *       and every node it took is ended.
 * </ul>
 *
 * <p>What a thread's next admission or entry says is its {@link Fate}, set by the thread before it acquires. Safe for
 * use by multiple threads: the bookkeeping is under this object's monitor, never held while calling the cohort.
 */
final class CohortWorld {
    /** Never started: the cohort's requests find no connection, and {@code end} only records the node's delete. */
    static final CuratorFramework CLIENT = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));

    static {
        ClientContext.of(CLIENT); // made once, before any model run, so that every run finds the same context
    }

    /**
     * What the model checker leaves out, as if each call were one step: the client's context (a static index of
     * clients, its tracker, hand-off state and releases in flight), Curator, ZooKeeper and logging. None of it takes
     * the cohort's lock or parks a local thread.
     */
    static final ManagedStrategyGuarantee AROUND_THE_COHORT = ManagedStrategyGuaranteeKt.forClasses(
                    name -> name.startsWith("org.apache.")
                            || name.startsWith("org.slf4j.")
                            || name.equals(ClientContext.class.getName())
                            || name.equals(ConnectionTracker.class.getName())
                            || name.equals(FrontNodes.class.getName())
                            || name.equals(ReleasesInFlight.class.getName())
                            || name.equals(NodeDeletes.class.getName())
                            || name.equals(ZooKeeperHandle.class.getName()))
            .allMethods()
            .ignore();

    /** Test bookkeeping, one step each: the world's checks are not what is checked. */
    static final ManagedStrategyGuarantee THE_WORLD_IS_ATOMIC = ManagedStrategyGuaranteeKt.forClasses(
                    CohortWorld.class.getName())
            .methods("enter", "exit", "take", "admit", "ended", "fate")
            .treatAsAtomic();

    /** Adds to a thread of a custom Lincheck scenario the calls of {@code test}'s operations, in order, no arguments. */
    static Unit thread(List<Actor> thread, Class<?> test, String... operations) {
        for (String operation : operations) {
            try {
                thread.add(new Actor(test.getMethod(operation), List.of()));
            } catch (NoSuchMethodException e) {
                throw new AssertionError(e);
            }
        }
        return Unit.INSTANCE;
    }

    /** What a thread's next admission (or, if it leads, its entry) says; then it is {@link Fate#ADMIT} again. */
    enum Fate {
        /** Admitted; a leader gets a node. */
        ADMIT,
        /** The deadline passed while the connection was down: the grant is given back, the acquire times out. */
        WAIT,
        /** The node is found LOST (and the cohort is told so, as the tracker would): the thread waits again. */
        LOST,
        /** A leader's entry gets no node (its deadline passed): the lead goes to the next waiter. */
        NO_NODE
    }

    final LockPath path;
    final Cohort cohort;
    private final boolean shared;
    private final Set<String> existing = ConcurrentHashMap.newKeySet(); // nodes taken and not yet ended
    private final Map<Thread, Hold> inside = new HashMap<>(); // threads in their critical section
    private final Map<Thread, Fate> fates = new HashMap<>();
    private int taken;
    private long newestToken = -1;

    CohortWorld(boolean shared, CohortSettings settings) {
        this.shared = shared;
        this.path = new LockPath(
                CLIENT, "/locks/model", "lock-", shared ? LockDriver.read() : LockDriver.exclusive(), null);
        this.path.setHooks(new QueueHooks() {
            @Override
            public void beforeRelease(String lockPath, String ourNode) {
                ended(ourNode);
            }
        });
        this.cohort = new Cohort(path, this::take, settings, shared, this::admit);
    }

    /** Settings under which the bounds never end a node early and no node is kept idle (no timer). */
    static CohortSettings plainSettings() {
        return new CohortSettings(CohortSettings.DEFAULT_MAX_PASSES, 1_000_000_000L, 0);
    }

    /** Sets what the current thread's next admission or entry says. */
    synchronized void fate(Fate fate) {
        fates.put(Thread.currentThread(), fate);
    }

    /**
     * Acquires with no deadline; if granted, enters the critical section, leaves it and releases. Returns whether it
     * held (a fate may make it give up).
     */
    boolean holdOnce() throws InterruptedException {
        Optional<Hold> hold = cohort.acquire(Deadline.forever());
        if (hold.isEmpty()) {
            return false;
        }
        enter(hold.get());
        exit();
        cohort.release(hold.get());
        return true;
    }

    /** Marks the cohort's node LOST, as the client's tracker does when its session ends, and tells the cohort. */
    void loseCurrentNode() {
        LockNode node = cohort.node();
        if (node != null) {
            lose(node);
        }
    }

    /** Asks the holders of the cohort's node to let go, as a revocation request does. */
    void revokeCurrentNode() {
        LockNode node = cohort.node();
        if (node != null) {
            cohort.revocationRequested(node);
        }
    }

    /**
     * Tells the cohort news of a node it does not hold (a watch event that comes after the cohort let its node go): the
     * machine ignores it, but it passes through the inbox like any other.
     */
    void lateNews() {
        cohort.revocationRequested(new LockNode(path, "_c_m-lock-0000000000", 1, 7));
    }

    private void lose(LockNode node) {
        node.moveTo(LockState.LOST);
        cohort.stateChanged(node, LockState.LOST);
    }

    /** The entry of the cohort's leader: a new node, granted HELD, or none if the thread's fate says so. */
    private Optional<LockNode> take(Deadline deadline) {
        LockNode node;
        synchronized (this) {
            if (nextFate() == Fate.NO_NODE) {
                return Optional.empty();
            }
            taken++;
            node = new LockNode(path, "_c_m-lock-" + (1_000_000_000L + taken), 100 + taken, 7);
            existing.add(node.name());
        }
        node.granted(LockState.HELD);
        return Optional.of(node);
    }

    private Admission.Verdict admit(List<LockNode> nodes, Deadline deadline) {
        LockNode node = nodes.get(0);
        Fate fate;
        synchronized (this) {
            fate = nextFate();
            require(existing.contains(node.name()), "granted %s, which the cohort has already ended", node);
        }
        if (fate == Fate.WAIT) {
            return Admission.Verdict.WAIT;
        }
        if (fate == Fate.LOST) {
            lose(node);
        }
        return node.trackedState() == LockState.LOST ? Admission.Verdict.LOST : Admission.Verdict.ADMIT;
    }

    private Fate nextFate() {
        Fate fate = fates.remove(Thread.currentThread());
        return fate == null ? Fate.ADMIT : fate;
    }

    /** The current thread enters its critical section on {@code hold}. */
    synchronized void enter(Hold hold) {
        require(existing.contains(hold.node().name()), "entered on %s, which the cohort has already ended", hold);
        if (!shared && hold.state() != LockState.LOST) {
            for (Map.Entry<Thread, Hold> other : inside.entrySet()) {
                require(
                        other.getValue().state() == LockState.LOST,
                        "entered on %s while %s holds %s, not lost",
                        hold,
                        other.getKey().getName(),
                        other.getValue());
            }
            require(hold.token() > newestToken, "token of %s not above the newest, %s", hold, newestToken);
            newestToken = hold.token();
        }
        inside.put(Thread.currentThread(), hold);
    }

    /** The current thread leaves its critical section, before it releases its hold. */
    synchronized void exit() {
        Hold hold = inside.remove(Thread.currentThread());
        require(hold != null, "left a critical section it never entered");
        require(existing.contains(hold.node().name()), "%s was ended while %s held it", hold, threadName());
    }

    /** Checks, once every thread is done, that the cohort is idle and that every node it took was ended. */
    void checkAllDone() {
        require(inbox().isEmpty(), "events left in the cohort's inbox with nobody to drain them: %s", inbox());
        require(!cohort.isActive(), "the cohort is still active after every thread is done: node %s", cohort.node());
        synchronized (this) {
            require(inside.isEmpty(), "threads still inside: %s", inside);
            require(existing.isEmpty(), "nodes left behind: %s", existing);
        }
    }

    private void ended(String node) { // no monitor: it runs inside LockPath.end, which may be left out of the model
        require(existing.remove(node), "node %s ended twice, or never taken", node);
    }

    /** The cohort's inbox, read without draining it (a monitoring read would drain it first). */
    private Collection<?> inbox() {
        try {
            Field inbox = Cohort.class.getDeclaredField("inbox");
            inbox.setAccessible(true);
            return (Collection<?>) inbox.get(cohort);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static String threadName() {
        return Thread.currentThread().getName();
    }

    private static void require(boolean condition, String template, Object... args) {
        if (!condition) {
            throw new AssertionError(String.format(template, args));
        }
    }
}
