package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.NodeNames;
import dev.zklock.recipes.locks.engine.Reply;
import dev.zklock.recipes.locks.engine.ZooKeeperHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one process that use one lock object, queued locally behind a single node of the ZooKeeper queue:
 * lock cohorting (Dice, Marathe and Shavit), with glock-style caching. Safe for use by multiple threads; its state is
 * guarded by one JVM lock, never held across a ZooKeeper call.
 */
final class Cohort implements LockStateListener {
    /*
     * Implementation notes.
     *
     * 1. The cohort holds at most one node in the ZooKeeper queue. A thread that finds no node and nobody taking one
     *    becomes the leader: it takes a node for the cohort with the lock's own entry (the engine's acquisition, its
     *    deadline, its cleanup on give-up), and the node is the cohort's from then on. A leader that gives up hands the
     *    lead to the next local waiter, so local waiters never wait on a node nobody is taking (CohortLockTest).
     * 2. Local order is FIFO. A release with a local waiter grants the node to the first waiter and wakes it, with no
     *    ZooKeeper request; the node and its fencing token stay. An exclusive cohort grants one holder at a time; a
     *    shared (read) cohort lets every local reader hold the node at once.
     * 3. Bounded unfairness: while the cohort cares (a local waiter behind a holder, or an idle cached node), it keeps
     *    one child watch on the lock path, set with a listing: one request when it starts caring, one more per change
     *    of the children (and, shared, per maxTime of overlapping readers: note 7) until a conflicting node ranked
     *    after ours shows (any node for an exclusive cohort, a write node for a read cohort): another session's
     *    waiter, or another lock object's. From then on the node passes locally at most maxPasses times and for at
     *    most maxTime; the next release past either bound deletes the node, and the first local waiter leads the rest
     *    to a new node at the back of the queue. Readers stop joining a held read node at once (writers never starve;
     *    note 7). A listing lost with the connection takes its watch with it, and nothing else would set it again while
     *    local readers keep joining (or a cached node waits out keepIdle): so when the node's hold comes back HELD
     *    after IN_DOUBT, the cohort lists with a watch again if it still cares (CohortLockTest,
     *    readLock_childWatchLostWithTheConnection_...). Each node has one watcher object, so listing again never
     *    registers a second watcher that would fire, and list, twice.
     * 4. Caching (keepIdle): the last local release keeps the node for keepIdle while no conflicting node is known; an
     *    acquire in that time takes it with no request. A conflicting arrival, heard on the child watch, deletes it at
     *    once without waiting (the delete is sent from the watch's callback); so does the end of keepIdle, on the
     *    client's timer. An exclusive cohort's idle node goes on any change of the children, without the listing that
     *    would tell an arrival from a departure: the arriving waiter gets in one delete after our event, as after a
     *    plain release plus one round trip.
     * 5. A lost node (the session ended, or the node was found gone) is dropped at once: its holder's hold is LOST and
     *    is released as any lost hold; local waiters lead to a new node. Nodes are compared by identity, so a late
     *    release of an older node never touches the current one.
     * 6. A local pass wakes the next waiter from the releasing thread (no ZooKeeper event to wait for), and the woken
     *    thread yields its processor once before it goes on: on a busy machine the woken thread often preempts the
     *    releasing one before release() has returned, and code that marks its critical section over on the line after
     *    release() (Curator's lock tests do) would see two holders. 8 threads looping on one lock object, 2 cores:
     *    37 % of local hand-offs early without the yield, 1 in about 4,500 with it (a JDK fair ReentrantLock: 37 %),
     *    and throughput no lower (80,000-90,000 acquisitions/s against 61,000-81,000).
     * 7. Shared joins need a fresh listing: a reader joins the held read node with no request only while the last
     *    listing found no writer behind it (joinable). Joins close when the children change (the child watch clears
     *    joinable at once, without the JVM lock, before it lists again), when a new node is taken (until its first
     *    listing), and when readers have joined beside other holders for maxTime since the last listing (the reader
     *    that finds it so sends one listing). While they are closed, new readers wait locally, and the last holder's
     *    release keeps the node for the answer: no writer lets them all in on the same node; a writer behind drops the
     *    node (deleted from the callback if nobody holds it) and they lead to a new one behind it. A listing that
     *    cannot be made, or fails, opens joins again, as before it. Why: 8 reader threads looping with no work between
     *    acquisitions keep two cores busy, and each step between a writer's create and the read node's delete waited
     *    for a processor (the child watch's callback also for the JVM lock the readers hammer, up to 30 ms): the writer
     *    waited 2.0-25 ms at p50 and 22-114 ms at p99 in `zklock bench`. Readers parked on a listing free the
     *    processors for it; closing on the child event alone left p99 at 13.6-14.0 ms, the writer's own create being
     *    slow while readers spin, and the maxTime re-check parks them for a round trip at least every maxTime, which
     *    lets that create through: p50 0.9-1.0 ms, p99 6.6-6.7 ms with maxTime 5 ms (reader acquisitions/s 0.7-0.9
     *    million, from 2.4-2.6). It costs one listing per maxTime while local readers overlap, and one round trip of
     *    waiting for a reader that comes while the cohort lists (CohortLockTest,
     *    readLock_childrenChange_newReadersWaitForTheListingThenShareTheNode,
     *    readLock_joinedForMaxTime_newReadersWaitForOneListingThenShareTheNode,
     *    readLock_writerQueuesWhileTheListingIsOnItsWay_theIdleNodeGoesAndNewReadersQueueBehindTheWriter).
     */
    private static final Logger logger = LoggerFactory.getLogger(Cohort.class);

    private static final int WAITING = 0;
    private static final int GRANTED = 1;
    private static final int LEAD = 2;

    private final LockPath path;
    private final LockCore.Entry entry;
    private final boolean shared;
    private final int maxPasses;
    private final long maxTimeNanos;
    private final long keepIdleNanos;
    private final BooleanSupplier passAllowed;

    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>(); // guarded by lock
    private LockNode node; // guarded by lock: the cohort's node in the ZooKeeper queue, or null
    private int holders; // guarded by lock: local holders of node
    private boolean leading; // guarded by lock: a waiter is taking a node for the cohort
    private long yieldSince; // guarded by lock: when a conflicting node was first known behind ours; 0 if none
    private int passes; // guarded by lock: local passes since then
    private boolean watching; // guarded by lock: a child watch is set, or being set, for node
    private Future<?> idleExpiry; // guarded by lock: the end of caching, while node is idle
    // Shared: the node while local readers may join it (a listing since the last change of the children found no
    // writer behind it), else null. Set under lock; cleared under lock, or by the child watch without it.
    private final AtomicReference<LockNode> joinable = new AtomicReference<>();
    private long openedAt; // guarded by lock: when joinable was last set
    private ChildWatch childWatch; // guarded by lock: the child watcher of node (one object, so never set twice)

    /**
     * @param path the lock's path
     * @param entry how the lock takes a node (for the cohort, by its leader)
     * @param settings the bounds and the caching time
     * @param shared whether local holders share the node (a read lock)
     * @param passAllowed whether the node may pass locally, or be taken while cached, now (a read/write lock's write
     *     cohort says no while a thread holds a read node beside the write node)
     */
    Cohort(LockPath path, LockCore.Entry entry, CohortSettings settings, boolean shared, BooleanSupplier passAllowed) {
        this.path = path;
        this.entry = entry;
        this.shared = shared;
        this.maxPasses = settings.maxPasses();
        this.maxTimeNanos = settings.maxTimeNanos();
        this.keepIdleNanos = settings.keepIdleNanos();
        this.passAllowed = passAllowed;
        path.listeners().add(this);
    }

    /**
     * Takes a local hold of the cohort's node until the deadline: at once, with no request, if the node is cached or
     * (shared) held and free to join; else behind the local waiters, leading the cohort to a node if none is held.
     *
     * @return the node, or empty if the deadline passed first (nothing is left behind)
     */
    Optional<LockNode> acquire(Deadline deadline) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + path.path() + "'");
        }
        Waiter waiter;
        boolean watch;
        LockNode end = null;
        ChildWatch recheck;
        lock.lock();
        try {
            recheck = closeExpiredJoins();
            if (mayJoin()) {
                holders++;
                cancelIdleExpiry();
                return Optional.of(node);
            }
            if (!shared && node != null && holders == 0 && waiting.isEmpty() && !leading) {
                end = dropNode(); // cached, but not to be taken now (a read node stands beside it): a new node
            }
            waiter = new Waiter(Thread.currentThread());
            waiting.addLast(waiter);
            if (node == null && !leading) {
                leading = true;
                waiter.status = LEAD;
            }
            watch = node != null && startWatching();
        } finally {
            lock.unlock();
        }
        if (end != null) {
            path.end(end);
        }
        if (recheck != null) {
            watch(recheck);
        } else if (watch) {
            watch();
        }
        return await(waiter, deadline);
    }

    /**
     * Ends a local hold of {@code hold}: passes the node to the next local waiter within the bounds (no request), or
     * keeps it cached, or deletes it (one request) and, if local threads still wait, has the first lead them to a new
     * node. A hold of an older node (lost, or a read node beside our own write node) is ended on its own.
     */
    void release(LockNode hold) {
        Waiter wake = null;
        LockNode end = null;
        boolean watch = false;
        lock.lock();
        try {
            if (hold != node) {
                end = hold;
            } else if (--holders > 0) {
                return;
            } else if (!waiting.isEmpty() && shared && yieldSince == 0) {
                return; // joins wait for a listing: its answer lets them in, or leads them to a new node
            } else if (!waiting.isEmpty() && mayPass()) {
                if (yieldSince != 0) {
                    passes++;
                }
                wake = grantFirst();
            } else if (!waiting.isEmpty()) {
                end = dropNode();
                wake = leadNext();
            } else if (keepIdleNanos > 0 && yieldSince == 0) {
                LockNode idle = node;
                idleExpiry = path.context().timer().schedule(() -> expire(idle), keepIdleNanos);
                watch = startWatching();
            } else {
                end = dropNode();
            }
        } finally {
            lock.unlock();
        }
        if (wake != null) {
            LockSupport.unpark(wake.thread);
        }
        if (watch) {
            watch();
        }
        if (end != null) {
            path.end(end);
        }
    }

    /** Tells whether the cohort holds a node, or threads wait on it: a registry must not forget the lock. */
    boolean isActive() {
        lock.lock();
        try {
            return node != null || leading || !waiting.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Returns how many local threads wait; for tests and monitoring. */
    int waitingCount() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** Tells whether a conflicting node is known behind the cohort's node (the bounds run); for tests. */
    boolean knowsOtherWaiter() {
        lock.lock();
        try {
            return yieldSince != 0;
        } finally {
            lock.unlock();
        }
    }

    /** Tells whether a local reader may join the held node now, with no request (note 7); for tests. */
    boolean admitsJoins() {
        lock.lock();
        try {
            return shared && node != null && joinable.get() == node;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A lost node is dropped at once; local waiters lead to a new one. A node held again after IN_DOUBT gets its child
     * watch again if it lost it (implementation note 3). Runs on a notification thread.
     */
    @Override
    public void stateChanged(LockStateEvent event) {
        if (event.state() == LockState.HELD) {
            heldAgain(event);
            return;
        }
        if (event.state() != LockState.LOST) {
            return;
        }
        Waiter wake = null;
        lock.lock();
        try {
            if (node == null || !node.path().equals(event.node())) {
                return;
            }
            logger.debug(
                    "{}: the cohort's node {} is lost; {} local waiters enter again",
                    path.path(),
                    node,
                    waiting.size());
            dropNode();
            wake = leadNext();
        } finally {
            lock.unlock();
        }
        if (wake != null) {
            LockSupport.unpark(wake.thread);
        }
    }

    /**
     * The connection is back and the node with it: a listing sent while it was down failed, and its watch was never
     * set (ZooKeeper sets it again on reconnection only if it was); one listing if the cohort still cares and has none.
     */
    private void heldAgain(LockStateEvent event) {
        boolean watch;
        lock.lock();
        try {
            watch = node != null && node.path().equals(event.node()) && caresToWatch() && startWatching();
        } finally {
            lock.unlock();
        }
        if (watch) {
            watch();
        }
    }

    private Optional<LockNode> await(Waiter waiter, Deadline deadline) throws InterruptedException {
        boolean parked = false;
        while (true) {
            int status = waiter.status;
            if (status == GRANTED) {
                if (parked) {
                    // Woken by the releasing thread, which may have lost its processor to us before its release()
                    // returned: let it go on first (see implementation note 6).
                    Thread.yield();
                }
                return Optional.of(waiter.node);
            }
            if (status == LEAD) {
                return lead(waiter, deadline);
            }
            if (Thread.interrupted()) {
                LockNode granted = leave(waiter);
                if (granted != null) {
                    release(granted); // granted as the interrupt came: pass it on, the interrupt wins
                } else if (waiter.status == LEAD) {
                    leadFailed(waiter); // made leader as the interrupt came: the next local waiter leads
                }
                throw new InterruptedException("interrupted while waiting for lock '" + path.path() + "'");
            }
            if (deadline.hasPassed()) {
                LockNode granted = leave(waiter);
                if (granted != null) {
                    return Optional.of(granted);
                }
                if (waiter.status == LEAD) {
                    continue; // made leader as the deadline passed: its acquisition makes one whole try
                }
                return Optional.empty();
            }
            if (deadline.isForever()) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, deadline.remainingNanos());
            }
            parked = true;
        }
    }

    /** Takes a node for the cohort; on success the leader holds it, and (shared) every local waiter with it. */
    private Optional<LockNode> lead(Waiter leader, Deadline deadline) throws InterruptedException {
        Optional<LockNode> taken;
        try {
            taken = entry.enter(deadline);
        } catch (InterruptedException | RuntimeException | Error e) {
            leadFailed(leader);
            throw e;
        }
        if (taken.isEmpty()) {
            leadFailed(leader);
            return Optional.empty();
        }
        LockNode got = path.track(taken.get());
        List<Waiter> wake = new ArrayList<>();
        boolean watch;
        lock.lock();
        try {
            waiting.remove(leader);
            leading = false;
            node = got;
            childWatch = new ChildWatch(got);
            holders = 1;
            yieldSince = 0;
            passes = 0;
            watching = false;
            joinable.set(null); // until the first listing shows no writer behind the node
            while (shared && !waiting.isEmpty()) {
                Waiter reader = waiting.pollFirst();
                reader.node = got;
                reader.status = GRANTED;
                holders++;
                wake.add(reader);
            }
            watch = (shared || !waiting.isEmpty()) && startWatching();
        } finally {
            lock.unlock();
        }
        for (Waiter waiter : wake) {
            LockSupport.unpark(waiter.thread);
        }
        if (watch) {
            watch();
        }
        return Optional.of(got);
    }

    /** A leader gave up: the next local waiter leads, if the cohort still has no node. */
    private void leadFailed(Waiter leader) {
        Waiter next = null;
        lock.lock();
        try {
            waiting.remove(leader);
            leading = false;
            if (node == null && !waiting.isEmpty()) {
                next = waiting.peekFirst();
                next.status = LEAD;
                leading = true;
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            LockSupport.unpark(next.thread);
        }
    }

    /**
     * A waiter gives up (deadline, interrupt): it leaves the local queue; returns the node if it was granted meanwhile
     * (it holds it), or null. A waiter made leader meanwhile stays leader.
     */
    private LockNode leave(Waiter waiter) {
        lock.lock();
        try {
            if (waiter.status == GRANTED) {
                return waiter.node;
            }
            if (waiter.status == LEAD) {
                return null;
            }
            waiting.remove(waiter);
            return null;
        } finally {
            lock.unlock();
        }
    }

    private boolean mayJoin() {
        if (node == null || leading || !waiting.isEmpty() || yieldSince != 0) {
            return false;
        }
        return shared ? joinable.get() == node : holders == 0 && passAllowed.getAsBoolean();
    }

    /**
     * Shared: readers have joined the held node for maxTime since the last listing; closes joins until the next one
     * (implementation note 7) and returns the watch to list with, or null while joins stay open. Under the lock.
     */
    private ChildWatch closeExpiredJoins() {
        if (!shared
                || holders == 0
                || joinable.get() != node
                || node == null
                || System.nanoTime() - openedAt < maxTimeNanos) {
            return null;
        }
        joinable.set(null);
        watching = true;
        return childWatch;
    }

    /** Makes the first local waiter lead the rest to a new node, once the node is dropped; returns it, or null. */
    private Waiter leadNext() {
        if (waiting.isEmpty() || leading) {
            return null;
        }
        Waiter next = waiting.peekFirst();
        next.status = LEAD;
        leading = true;
        return next;
    }

    private boolean mayPass() {
        if (shared || !passAllowed.getAsBoolean()) {
            return false;
        }
        return yieldSince == 0 || (passes < maxPasses && System.nanoTime() - yieldSince < maxTimeNanos);
    }

    private Waiter grantFirst() {
        Waiter first = waiting.pollFirst();
        holders = 1;
        first.node = node;
        first.status = GRANTED;
        return first;
    }

    private LockNode dropNode() {
        LockNode dropped = node;
        node = null;
        holders = 0;
        yieldSince = 0;
        passes = 0;
        watching = false;
        joinable.set(null);
        childWatch = null;
        cancelIdleExpiry();
        return dropped;
    }

    private void cancelIdleExpiry() {
        if (idleExpiry != null) {
            idleExpiry.cancel(false);
            idleExpiry = null;
        }
    }

    /** The end of caching: deletes the node if it is still idle. Runs on the client's timer. */
    private void expire(LockNode idle) {
        LockNode end = null;
        lock.lock();
        try {
            if (node == idle && holders == 0 && waiting.isEmpty() && !leading) {
                end = dropNode();
            }
        } finally {
            lock.unlock();
        }
        if (end != null) {
            logger.debug(
                    "{}: the cohort's cached node {} is released: idle for {} ms",
                    path.path(),
                    end,
                    keepIdleNanos / 1_000_000);
            path.endLater(end);
        }
    }

    /** Tells whether a watch matters: readers may join, the node is cached, or local threads wait. Under the lock. */
    private boolean caresToWatch() {
        return shared || holders == 0 || !waiting.isEmpty();
    }

    /** Marks the child watch as wanted for the current node; true if the caller must set it (outside the lock). */
    private boolean startWatching() {
        if (watching || node == null || yieldSince != 0) {
            return false;
        }
        watching = true;
        return true;
    }

    /** Lists the lock path with a child watch: one request. */
    private void watch() {
        ChildWatch watch;
        lock.lock();
        try {
            watch = childWatch;
        } finally {
            lock.unlock();
        }
        if (watch != null) {
            watch(watch);
        }
    }

    private void watch(ChildWatch watch) {
        LockNode watched = watch.node;
        ZooKeeperHandle handle = ZooKeeperHandle.currentQuietly(path.client());
        if (handle == null) {
            stopWatching(watched);
            return;
        }
        String lockPath = path.fixed(path.path());
        handle.watchChildren(lockPath, watch).thenAccept(reply -> {
            if (!listed(watched, reply) && reply.isOk()) {
                // The cohort moved on before the listing came back: no delete of ours will fire this watch.
                handle.removeChildWatch(lockPath, watch);
            }
        });
    }

    /**
     * No watch is set for {@code watched}, and no listing answers: local readers join as they did before it (a lost
     * connection; the hold's return to HELD lists again).
     */
    private void stopWatching(LockNode watched) {
        List<Waiter> wake;
        lock.lock();
        try {
            if (node == watched) {
                watching = false;
            }
            wake = openJoins(watched);
        } finally {
            lock.unlock();
        }
        wakeAll(wake);
    }

    /** Shared: lets local readers join {@code watched} again, and grants it to those who wait. Under the lock. */
    private List<Waiter> openJoins(LockNode watched) {
        if (!shared || node != watched || yieldSince != 0 || leading) {
            return List.of();
        }
        joinable.set(watched);
        openedAt = System.nanoTime();
        List<Waiter> wake = new ArrayList<>(waiting.size());
        while (!waiting.isEmpty()) {
            Waiter reader = waiting.pollFirst();
            reader.node = watched;
            reader.status = GRANTED;
            holders++;
            wake.add(reader);
        }
        if (!wake.isEmpty()) {
            cancelIdleExpiry();
        }
        return wake;
    }

    private static void wakeAll(List<Waiter> wake) {
        for (Waiter waiter : wake) {
            LockSupport.unpark(waiter.thread);
        }
    }

    /** The child watch fired: list again while the cohort still cares, else let it go. */
    private void childrenChanged(ChildWatch watch, WatchedEvent event) {
        if (event.getType() == Watcher.Event.EventType.None) {
            return; // a disconnection keeps the watch; an expired session drops the node (stateChanged)
        }
        LockNode watched = watch.node;
        if (shared && joinable.compareAndSet(watched, null)) {
            // Readers stop joining now, before the listing tells whether a writer queued: they wait for its answer
            // instead of spinning on the node, and that answer comes sooner on a busy machine.
            watch(watch);
            return;
        }
        boolean again;
        LockNode end = null;
        lock.lock();
        try {
            if (!shared && node == watched && holders == 0 && waiting.isEmpty() && !leading) {
                // Cached and idle, exclusive: any change of the children (a node behind ours, or one that went) ends
                // the caching at once, without a listing to tell which: the waiter is let in one delete sooner.
                end = dropNode();
                again = false;
            } else {
                again = node == watched && watching && yieldSince == 0 && caresToWatch();
                if (node == watched && !again) {
                    watching = false;
                }
            }
        } finally {
            lock.unlock();
        }
        if (end != null) {
            logger.debug(
                    "{}: the children of the lock path changed while {} was cached; releasing it", path.path(), end);
            path.endLater(end);
        }
        if (again) {
            watch(watch);
        }
    }

    /**
     * A listing of the lock path: a conflicting node behind ours starts the bounds, and ends caching at once; none lets
     * local readers join again. Returns false if the cohort no longer holds the watched node.
     */
    private boolean listed(LockNode watched, Reply reply) {
        if (!(reply instanceof Reply.Children listing)) {
            stopWatching(watched);
            return true;
        }
        boolean conflict = conflictBehind(watched, listing.children());
        List<Waiter> wake = List.of();
        LockNode end = null;
        Waiter lead = null;
        lock.lock();
        try {
            if (node != watched) {
                return false;
            }
            if (!conflict) {
                wake = openJoins(watched); // the watch stays set
            } else {
                watching = false;
                if (yieldSince == 0) {
                    yieldSince = System.nanoTime();
                    passes = 0;
                }
                if (holders == 0 && !leading) {
                    end = dropNode(); // idle (cached, or local readers wait for this answer): let the waiter in now
                    lead = leadNext();
                }
            }
        } finally {
            lock.unlock();
        }
        wakeAll(wake);
        if (end != null) {
            logger.debug("{}: another waiter queued behind the cohort's idle node {}; releasing it", path.path(), end);
            path.endLater(end); // sent before the local leader's create: the waiter's turn comes first
        }
        if (lead != null) {
            LockSupport.unpark(lead.thread);
        }
        return true;
    }

    /** Tells whether a node that conflicts with ours ranks after it: any, exclusive; a writer's, shared. */
    private boolean conflictBehind(LockNode watched, List<String> children) {
        List<String> sorted = path.driver().sort(children);
        int ours = sorted.indexOf(watched.name());
        for (int i = ours + 1; ours >= 0 && i < sorted.size(); i++) {
            if (!shared || NodeNames.isWriter(sorted.get(i))) {
                return true;
            }
        }
        return false;
    }

    /** The child watcher of one node of the cohort. */
    private final class ChildWatch implements Watcher {
        final LockNode node;

        ChildWatch(LockNode node) {
            this.node = node;
        }

        @Override
        public void process(WatchedEvent event) {
            childrenChanged(this, event);
        }
    }

    /** One local thread waiting for the cohort's node. */
    private static final class Waiter {
        final Thread thread;
        volatile int status = WAITING;
        volatile LockNode node; // written before status becomes GRANTED

        Waiter(Thread thread) {
            this.thread = thread;
        }
    }
}
