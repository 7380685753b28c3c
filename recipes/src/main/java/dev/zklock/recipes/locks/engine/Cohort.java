package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner of a cohort's {@link LocalQueue}: parks and wakes the local threads, has a leader take a node with the
 * lock's own entry, asks {@link Admission} before any grant becomes a hold, and carries out the machine's commands (the
 * child watch's listings, the idle timer, the deletes). Safe for use by multiple threads.
 *
 * <p>Local threads tell the machine their events under one JVM lock. Nothing else waits for that lock: ZooKeeper's
 * event thread, Curator's connection-state thread and the client's timer put their events in a lock-free inbox and
 * take the lock only if it is free; whoever holds the lock drains the inbox before and after its own event. So a watch
 * of this client never queues behind a thread that holds the lock (a local waiter with a long critical section, a
 * thread that lost its processor), and no event is left in the inbox: one put there while the lock is held is drained
 * by the holder, which looks again after it lets go.
 *
 * <p>An exclusive cohort queues its local threads at a {@link PassGate} first: one at a time tells the machine its
 * events, and while the machine lets the node pass with nothing to count ({@link LocalQueue#passableAtGate}) a release
 * passes its hold to the next thread at the gate with no JVM lock and no event.
 *
 * <p>Cost: a local pass, a read join and the take of an idle node cost no request; a leader's node costs an acquire of
 * the lock's own ({@link LockPath#acquire}); the child watch costs one listing when the cohort starts to care and one
 * per change of the lock path's children until a conflicting node is known, and then one data read that watches an
 * exclusive node itself for its deletion; ending a node costs one delete. So an uncontended hold costs what a plain one
 * does.
 */
public final class Cohort implements NodeEvents {
    private static final Logger logger = LoggerFactory.getLogger(Cohort.class);

    /** How a cohort's leader takes a node of its own, admitted: the lock's own entry. */
    @FunctionalInterface
    public interface Entry {
        /** Returns the node, tracked and admitted, or empty if the deadline passed first (nothing left behind). */
        Optional<LockNode> take(Deadline deadline) throws InterruptedException;
    }

    /** How a grant is admitted: {@link Admission#await} for every cohort; a model checker may give another. */
    @FunctionalInterface
    interface Admitter {
        Admission.Verdict await(List<LockNode> nodes, Deadline deadline) throws InterruptedException;
    }

    private final LockPath path;
    private final Entry entry;
    private final Admitter admitter;
    private final boolean shared;
    final ReentrantLock lock = new ReentrantLock(); // package-private: CohortTest holds it to show no notifier waits
    private final LocalQueue queue; // guarded by lock
    private final ConcurrentLinkedQueue<LocalEvent> inbox = new ConcurrentLinkedQueue<>();
    private final PassGate gate; // exclusive only: local threads queue here, one at a time asks the machine or holds
    private volatile LockNode passable; // the node the gate may pass on its own, or null (LocalQueue.passableAtGate)
    private volatile boolean queuedKnown; // the machine knows that threads wait at the gate
    private final IdleTimer<LockNode> idleTimer;
    private final CohortWatches watches;

    /**
     * @param path the lock's path; the cohort hears of its nodes' states and revocation requests through it
     * @param entry how a leader takes a node
     * @param settings the bounds and the idle time
     * @param shared whether local holders share the node (a read lock)
     */
    public Cohort(LockPath path, Entry entry, CohortSettings settings, boolean shared) {
        this(path, entry, settings, shared, Admission::await);
    }

    /** A cohort whose grants {@code admitter} admits: for model checking the runner without ZooKeeper. */
    Cohort(LockPath path, Entry entry, CohortSettings settings, boolean shared, Admitter admitter) {
        this.path = path;
        this.entry = entry;
        this.admitter = admitter;
        this.shared = shared;
        this.queue = new LocalQueue(settings, shared, path.driver());
        this.gate = shared ? null : new PassGate();
        this.idleTimer = new IdleTimer<>(path.context().timer(), kept -> post(new LocalEvent.IdleExpired(kept)));
        this.watches = new CohortWatches(path, this::post);
        path.setNodeEvents(this);
    }

    /**
     * Takes a local hold of the cohort's node until the deadline: at once if the node is idle or (shared) open to
     * joins; else behind the local waiters, leading the cohort to a node if none is held. Every grant asks
     * {@link Admission} first.
     *
     * @return the hold, or empty if the deadline passed first (nothing is left behind)
     * @throws IllegalStateException if the client is closed
     * @throws InterruptedException if interrupted before it returns (a grant that came meanwhile is passed on)
     */
    public Optional<Hold> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + path.path() + "'");
        }
        LocalWaiter waiter = new LocalWaiter(Thread.currentThread());
        if (gate == null || gate.enter(waiter)) {
            // Only a shared queue reads an acquire's time (a read join's window: LocalQueue.acquire), and a clock read
            // costs 30 to 90 ns on a virtual machine (kvm-clock): an uncontended local cycle read the clock eight
            // times.
            run(new LocalEvent.Acquire(waiter, shared ? now() : 0));
        } else if (!queuedKnown && waiter.status() == LocalWaiter.Status.QUEUED) {
            post(new LocalEvent.Queued()); // the machine sets the child watch that lets the node pass at the gate
        }
        while (true) {
            LocalWaiter.Status status = waiter.status();
            if (status == LocalWaiter.Status.GRANTED) {
                // No yield here: the thread that granted runs on, as a JDK lock's releaser does, and
                // a yield that let it return from release() first cost a switch of processor per pass (8 threads on
                // 2 cores: 2.7 context switches per acquisition with it, 1.8 without).
                QueueHooks hooks = path.hooks();
                if (hooks != QueueHooks.NONE) { // a node's name is a substring made on each call
                    hooks.passed(path.path(), waiter.node().name());
                }
                Optional<Hold> admitted = admit(waiter, deadline);
                if (admitted != null) {
                    return admitted;
                }
                continue; // the node was lost: waiting again, or leading
            }
            if (status == LocalWaiter.Status.LEAD) {
                return lead(waiter, deadline);
            }
            if (status == LocalWaiter.Status.ENTERED) {
                waiter.entered(); // through the gate with no hold: asks the machine
                run(new LocalEvent.Acquire(waiter, 0));
                continue;
            }
            if (Thread.interrupted()) {
                abandon(waiter);
                throw new InterruptedException("interrupted while waiting for lock '" + path.path() + "'");
            }
            if (deadline.hasPassed()) {
                if (giveUp(waiter)) {
                    return Optional.empty();
                }
                continue; // granted, let through the gate, or made leader, as the deadline passed: one check, or one
                // whole try
            }
            FirstUse.passed(Thread.currentThread()); // waits for its turn
            park(waiter, deadline);
        }
    }

    /**
     * {@code waiter}'s deadline passed: it leaves the gate, or the machine and then the gate.
     *
     * @return whether it is out; false if it was granted, let through the gate or made leader first
     */
    private boolean giveUp(LocalWaiter waiter) {
        LocalWaiter.Status status = waiter.status();
        if (status == LocalWaiter.Status.QUEUED) {
            return gate.leave(waiter);
        }
        if (status != LocalWaiter.Status.WAITING) {
            return false;
        }
        run(new LocalEvent.GiveUp(waiter, false));
        if (waiter.status() != LocalWaiter.Status.WAITING) {
            return false;
        }
        leaveGate();
        return true;
    }

    /**
     * {@code waiter}'s thread was interrupted: it leaves the gate or the machine, and passes on what it got meanwhile
     * (a grant, the gate).
     */
    private void abandon(LocalWaiter waiter) {
        if (waiter.status() == LocalWaiter.Status.QUEUED && gate.leave(waiter)) {
            return;
        }
        if (waiter.status() == LocalWaiter.Status.ENTERED) {
            gate.release(); // let through the gate as the interrupt came: on to the next
            return;
        }
        if (waiter.status() != LocalWaiter.Status.GRANTED) {
            run(new LocalEvent.GiveUp(waiter, true));
        }
        if (waiter.status() == LocalWaiter.Status.GRANTED) {
            release(waiter.hold()); // granted as the interrupt came: pass it on, the interrupt wins
        } else {
            leaveGate(); // out of the machine, or its lead ended
        }
    }

    /** The thread that has the gate, holding nothing, lets it go; a read cohort has none. */
    private void leaveGate() {
        if (gate != null) {
            gate.release();
        }
    }

    /**
     * Parks until {@code waiter}'s status changes, the deadline or an interrupt (or spuriously: the caller looks
     * again). It says that it parks before it reads its status the last time, and its waker unparks it only if it
     * said so ({@link #execute}): a grant that comes before it parks costs no unpark.
     */
    private void park(LocalWaiter waiter, Deadline deadline) {
        if (gate != null && waiter.status() == LocalWaiter.Status.QUEUED) {
            gate.spinIfNext(waiter);
        }
        waiter.parking(true);
        LocalWaiter.Status status = waiter.status();
        if (status == LocalWaiter.Status.WAITING || status == LocalWaiter.Status.QUEUED) {
            if (gate != null) {
                gate.beforePark(waiter); // the wake a pass left ahead of its turn takes the processor this one leaves
            }
            if (deadline.isForever()) {
                Parking.park(this);
            } else {
                Parking.parkNanos(this, deadline.remainingNanos());
            }
        }
        waiter.parking(false);
    }

    /**
     * Ends a local hold: the gate passes it to the next thread queued there, on its own while the machine lets it
     * ({@link #passable}); else the machine passes the node on (to the gate, or a waiter), keeps it idle, or ends it
     * (one delete, on this thread), and the gate goes to the next with no hold.
     */
    public void release(Hold hold) {
        if (gate == null) {
            run(new LocalEvent.Release(hold.node(), 0)); // its time is read under the lock if the machine reads it
            return;
        }
        LockNode node = hold.node();
        int pass = hold.pass();
        while (true) {
            if (passable == node && pass + 1 < FencingToken.PASSES_PER_NODE && gate.passHold(node, pass + 1)) {
                return; // no lock, no event: the next holds, and the machine hears of it at the release that ends the
                // run
            }
            LocalCommand.PassAtGate passed = passAtGate(run(new LocalEvent.Release(node, 0, pass, gate.hasQueued())));
            if (passed == null) {
                return; // the machine opened the gate (OpenGate), or did when it let the node go while held
            }
            if (gate.passHold(node, passed.pass())) {
                return;
            }
            pass = passed.pass(); // nobody queued took it: this thread holds it again, and releases it again
        }
    }

    private static LocalCommand.PassAtGate passAtGate(List<LocalCommand> commands) {
        for (LocalCommand command : commands) {
            if (command instanceof LocalCommand.PassAtGate passed) {
                return passed;
            }
        }
        return null;
    }

    /** A thread that holds {@code node}, our write node, took ({@code +1}) or ended ({@code -1}) a read node beside it. */
    public void beside(LockNode node, int delta) {
        run(new LocalEvent.Beside(node, delta));
    }

    @Override
    public void stateChanged(LockNode node, LockState state) {
        if (state == LockState.LOST) {
            post(new LocalEvent.NodeLost(node));
        } else if (state == LockState.HELD) {
            post(new LocalEvent.Resumed(node));
        }
    }

    @Override
    public void revocationRequested(LockNode node) {
        post(new LocalEvent.Revoked(node));
    }

    /** Tells whether the cohort holds a node or has threads waiting on it: a registry must not forget the lock. */
    public boolean isActive() {
        return read(() -> queue.view().active()) || gate != null && gate.inUse();
    }

    /** Returns how many local threads wait; for tests and monitoring. */
    public int waitingCount() {
        return read(() -> queue.view().waiting()) + (gate == null ? 0 : gate.queuedCount());
    }

    /** Tells whether a conflicting node is known behind the cohort's node (the bounds run); for tests. */
    public boolean knowsOtherWaiter() {
        return read(() -> queue.view().conflictKnown());
    }

    /** Tells whether local readers may join the held node now, with no request; for tests. */
    public boolean admitsJoins() {
        return read(() -> queue.view().joinable());
    }

    /** Tells whether the node may still pass locally (not asked to let go, passes left); for tests. */
    public boolean admitsPasses() {
        return read(() -> queue.view().passable());
    }

    /** Returns the cohort's node, or null; for tests. */
    public LockNode node() {
        return read(() -> queue.view().node());
    }

    /**
     * Asks {@link Admission} for a grant: the hold once admitted; null if the node was lost (the waiter waits again);
     * empty if the deadline passed while the connection was down (the node is given back).
     */
    private Optional<Hold> admit(LocalWaiter waiter, Deadline deadline) throws InterruptedException {
        Hold hold = waiter.hold();
        Admission.Verdict verdict;
        try {
            verdict = admitter.await(List.of(hold.node()), deadline);
        } catch (InterruptedException e) {
            release(hold);
            throw e;
        }
        switch (verdict) {
            case ADMIT -> {
                return Optional.of(notInterrupted(hold));
            }
            case LOST -> {
                run(new LocalEvent.GrantLost(waiter, hold.node()));
                return null;
            }
            case CLOSED -> {
                release(hold);
                throw Admission.closed(hold.node());
            }
            default -> {
                release(hold);
                return Optional.empty();
            }
        }
    }

    /** Takes a node for the cohort; on success the leader holds it, and (shared) every local waiter with it. */
    private Optional<Hold> lead(LocalWaiter leader, Deadline deadline) throws InterruptedException {
        Optional<LockNode> taken;
        try {
            taken = entry.take(deadline);
        } catch (InterruptedException | RuntimeException | Error e) {
            run(new LocalEvent.LeadEnded(leader));
            leaveGate();
            throw e;
        }
        if (taken.isEmpty()) {
            run(new LocalEvent.LeadEnded(leader));
            leaveGate();
            return Optional.empty();
        }
        run(new LocalEvent.NodeTaken(leader, taken.get(), now()));
        return Optional.of(notInterrupted(Hold.of(taken.get(), 0)));
    }

    /**
     * Returns {@code hold}, admitted, unless the thread was interrupted while it waited, or as the grant came: then the
     * hold is passed on and the interrupt wins, as {@link #acquire} promises. Without this check a waiter woken by a
     * pass and an interrupt at once took the hold with its interrupt flag set; a caller that expects the interrupt to
     * end its acquire (a task cancelled with {@code Future.cancel(true)}, a thread being stopped) never released it,
     * and the cohort's node stood until the client closed (CohortInterruptTest).
     */
    private Hold notInterrupted(Hold hold) throws InterruptedException {
        if (Thread.interrupted()) {
            release(hold);
            throw new InterruptedException("interrupted while acquiring lock '" + path.path() + "'");
        }
        return hold;
    }

    /**
     * Tells the machine an event of a local thread, under the lock, and carries out its answer on this thread. A
     * release is told with its time only if the machine reads it ({@link LocalQueue#readsReleaseTime()}): a clock read
     * costs 30 to 90 ns on a virtual machine, and a pass's release read one before it woke the next holder.
     */
    private List<LocalCommand> run(LocalEvent event) {
        List<LocalCommand> out = new ArrayList<>(4);
        lock.lock();
        try {
            drainInbox(out);
            queue.on(
                    event instanceof LocalEvent.Release release && queue.readsReleaseTime()
                            ? new LocalEvent.Release(release.node(), now(), release.pass(), release.queued())
                            : event,
                    out);
            publish();
        } finally {
            lock.unlock();
        }
        execute(out, true);
        drainLater();
        return out;
    }

    /** Publishes, under the lock, what the gate reads of the machine without it. */
    private void publish() {
        if (gate != null) {
            passable = queue.passableAtGate();
            queuedKnown = queue.knowsQueued();
        }
    }

    /** Puts an event in the inbox, never waiting for the lock: for ZooKeeper's event thread and the other notifiers. */
    private void post(LocalEvent event) {
        inbox.add(event);
        drainLater();
    }

    /** Drains the inbox if the lock is free; whoever holds it drains after it lets go. Never blocks. */
    private void drainLater() {
        while (!inbox.isEmpty() && lock.tryLock()) {
            List<LocalCommand> out = new ArrayList<>(4);
            try {
                drainInbox(out);
                publish();
            } finally {
                lock.unlock();
            }
            execute(out, false);
        }
    }

    private void drainInbox(List<LocalCommand> out) {
        for (LocalEvent event = inbox.poll(); event != null; event = inbox.poll()) {
            queue.on(event, out);
        }
    }

    /**
     * Reads the machine's state for monitoring, after the events in the inbox; then drains what was posted while it
     * held the lock, as every holder of the lock must (CohortModelTest).
     */
    private <T> T read(Supplier<T> look) {
        List<LocalCommand> out = new ArrayList<>(4);
        T seen;
        lock.lock();
        try {
            drainInbox(out);
            publish();
            seen = look.get();
        } finally {
            lock.unlock();
        }
        execute(out, false);
        drainLater();
        return seen;
    }

    /**
     * Carries out the machine's commands in order. A local thread deletes on its own thread ({@code mayBlock}), as a
     * release of a node of its own does; the notifiers only send.
     */
    private void execute(List<LocalCommand> commands, boolean mayBlock) {
        for (LocalCommand command : commands) {
            if (command instanceof LocalCommand.Wake wake) {
                if (wake.waiter().mayBeParked() && wake.waiter().thread() != Thread.currentThread()) {
                    Parking.unpark(wake.waiter().thread());
                }
            } else if (command instanceof LocalCommand.List list) {
                watches.list(list.node());
            } else if (command instanceof LocalCommand.WatchNode watchNode) {
                watches.watchOwn(watchNode.node());
            } else if (command instanceof LocalCommand.StopWatching stop) {
                SessionPort handle = path.port().current();
                if (handle != null) {
                    path.removeWatch(handle, path.fixed(path.path()), stop.watcher(), true);
                }
            } else if (command instanceof LocalCommand.End end) {
                logger.debug("{}: the cohort lets {} go", path.path(), end.node());
                if (mayBlock) {
                    path.end(end.node());
                } else {
                    path.endLater(end.node());
                }
            } else if (command instanceof LocalCommand.KeepIdle keep) {
                idleTimer.keep(keep.node(), keep.nanos());
            } else if (command instanceof LocalCommand.CancelIdle) {
                idleTimer.cancel();
            } else if (command instanceof LocalCommand.PassAtGate) {
                continue; // the releaser passes it at the gate (release)
            } else if (command instanceof LocalCommand.OpenGate) {
                gate.release(); // the holder of the node let go keeps nothing the others wait for
            } else if (command instanceof LocalCommand.Lose lose) {
                path.context().tracker().lose(lose.node(), "its node is gone from the lock path");
            } else {
                throw new AssertionError("unknown command " + command);
            }
        }
    }

    /** The time of a local event, on the client's clock (the simulator's, in the simulator). */
    private long now() {
        return path.context().timer().read();
    }
}
