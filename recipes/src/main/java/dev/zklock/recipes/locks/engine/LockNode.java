package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkLockException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock node this process created, and, once the lock is granted, the state of the holds it stands for: its name and
 * owning session, its creation zxid (which grows across the whole ensemble, and makes the fencing tokens of its holds:
 * {@link Hold#token()}), and its {@link LockState}, changed by the client's {@link ConnectionTracker} and read by any
 * thread. Safe for use by multiple threads.
 *
 * <p>The creation zxid comes from the create's reply. An acquire that finds our node in the pipelined listing does not wait
 * for that reply (ZooKeeper hands asynchronous replies to its event thread, one thread hop later): the reply was
 * read before the listing's, so asking for the zxid then costs at most that hop, and it is kept as soon as the reply is
 * handed over.
 *
 * <p>A held lock costs its node a few words and one string, its full path, which the watch on it in ZooKeeper's
 * client keys on too: the node keeps no copy of its lock path (its queue has it) nor of its name, and the client's
 * tracker links the held nodes into a list through the node itself. The node is also the data watch on itself ({@link
 * OwnNodeWatch}, its superclass) and its own first hold ({@link Hold}).
 */
public final class LockNode extends OwnNodeWatch implements Hold {
    private static final Logger logger = LoggerFactory.getLogger(LockNode.class);

    private final LockPath queue; // its lock path, namespace and listeners: a hold keeps no copy of them
    private final String fixedPath; // its full path as ZooKeeper names it: the one string a held node keeps
    private final long sessionId;
    private volatile CompletableFuture<Long> created; // until the creation zxid is known, then null
    private volatile long czxid;
    private volatile boolean front; // granted with no node ranked before it
    private volatile LockState state; // written under this: null until the lock is granted and tracked
    private volatile boolean deletedOutside; // its own watch saw it deleted (OwnNodeWatch)
    private volatile boolean seenBeforeAWait; // granted with nodes last seen before a wait: vouched before admission
    private volatile boolean
            voucherLapsed; // a data change spent its own watch; admission waits for the next one's reply
    private long grantedNanos; // written before the node is handed to the holder
    LockNode previous; // guarded by the client's tracker: its list of held nodes
    LockNode next; // guarded by the client's tracker

    /**
     * A node whose creation zxid is known.
     *
     * @param queue the queue of the lock path the node is a child of
     */
    public LockNode(LockPath queue, String name, long czxid, long sessionId) {
        this.queue = queue;
        this.fixedPath = fixedPathOf(queue, name);
        this.sessionId = sessionId;
        this.czxid = czxid;
    }

    private LockNode(LockPath queue, String name, long sessionId, CompletableFuture<Long> created) {
        this.queue = queue;
        this.fixedPath = fixedPathOf(queue, name);
        this.sessionId = sessionId;
        this.created = created;
        created.thenAccept(known -> {
            czxid = known;
            this.created = null;
        });
    }

    private static String fixedPathOf(LockPath queue, String name) {
        return queue.fixedChild(name);
    }

    /** A node found in a listing while the reply to its create, read already, is still on its way to us. */
    public static LockNode createdBy(LockPath queue, String name, long sessionId, CompletableFuture<Long> created) {
        return new LockNode(queue, name, sessionId, created);
    }

    /** The lock path the node is a child of, relative to the client's namespace. */
    public String lockPath() {
        return queue.path();
    }

    /** The queue the node stands in. */
    public LockPath queue() {
        return queue;
    }

    /** The node's full path, relative to the client's namespace; made on each call, not kept. */
    public String path() {
        return ZKPaths.makePath(queue.path(), name());
    }

    /**
     * The node's full path with the client's namespace, as ZooKeeper itself names it; kept, so that the key of a watch
     * on the node in ZooKeeper's client ({@link OwnNodeWatch}) is no copy.
     */
    public String fixedPath() {
        return fixedPath;
    }

    /** The node's name, the last segment of {@link #path()}; made on each call, not kept. */
    public String name() {
        return fixedPath.substring(fixedPath.lastIndexOf('/') + 1);
    }

    /** Marks the node as granted with no node ranked before it. */
    public void grantedAtFront() {
        front = true;
    }

    /** Tells whether the node was granted with no node ranked before it. */
    public boolean isGrantedAtFront() {
        return front;
    }

    /** The session that owns the ephemeral node. */
    public long sessionId() {
        return sessionId;
    }

    /**
     * The node's creation zxid, of which the fencing tokens of its holds are made. Waits, at most one request timeout,
     * for the create's reply to be handed over by ZooKeeper's event thread if it has not been yet.
     *
     * @throws ZkLockException if the reply is not handed over in that time: something blocks ZooKeeper's event thread
     */
    public long czxid() {
        long known = czxid;
        CompletableFuture<Long> pending = created;
        if (known != 0 || pending == null) {
            return czxid;
        }
        long waitNanos = queue.requestTimeoutNanos();
        Long handed = Uninterruptibles.await(pending, waitNanos);
        if (handed == null) {
            throw new ZkLockException(
                    String.format(
                            "creation zxid of node '%s' of lock '%s' not known: the reply to its create was not handed"
                                    + " over within %d ms; is a listener or watcher blocking ZooKeeper's event thread?",
                            path(), queue.path(), TimeUnit.NANOSECONDS.toMillis(waitNanos)),
                    queue.path(),
                    false,
                    null,
                    null);
        }
        return handed;
    }

    /**
     * Marks the node deleted by another client and makes its hold LOST if it is tracked (one not yet tracked starts
     * LOST): what its own watch ({@link OwnNodeWatch}) or a failed check found. A node's own watch also fires for our
     * own release, after the hold stopped being tracked: nothing is lost then. Does not block.
     */
    void foundDeleted(String why) {
        deletedOutside();
        queue.context().tracker().lose(this, why);
    }

    private void deletedOutside() {
        deletedOutside = true;
    }

    /** The node's own watch ({@link OwnNodeWatch}, the node itself) if one was ever set on it, else null. */
    OwnNodeWatch ownWatch() {
        return isWatchSet() ? this : null;
    }

    /**
     * Marks the node as granted in a multi-lock that waited on another queue after it last saw this one: a stranger may
     * have deleted it meanwhile, so admission waits for its own watch's first reply ({@link Admission}).
     */
    void seenBeforeAWait() {
        seenBeforeAWait = true;
    }

    /** Tells whether admission waits for this node's own watch before it admits it ({@link #seenBeforeAWait()}). */
    boolean isSeenBeforeAWait() {
        return seenBeforeAWait;
    }

    /**
     * A data change (a revocation request, say) spent the node's own watch: until a new read answers, nothing vouches
     * that it stands, and a grant decided before must not be admitted on it ({@link Admission}).
     */
    void voucherLapsed() {
        voucherLapsed = true;
    }

    /** Tells whether the voucher lapsed since last asked, and forgets it (admission, which then waits for a new one). */
    boolean takeVoucherLapsed() {
        if (!voucherLapsed) {
            return false;
        }
        voucherLapsed = false; // a lapse told after this read is seen at admission's next look
        return true;
    }

    /** Tells whether the node's own watch saw it deleted. */
    boolean isDeletedOutside() {
        return deletedOutside;
    }

    /**
     * Starts the hold: the lock was granted to this node, HELD, or IN_DOUBT if the connection is down. A hold LOST
     * already stays LOST: no grant makes a lost node HELD again.
     */
    public synchronized void granted(LockState initial) {
        grantedNanos = System.nanoTime();
        if (state != LockState.LOST) {
            state = initial;
        }
    }

    /** Returns the state of the hold as its tracker keeps it, or null if the lock was never granted to this node. */
    public LockState trackedState() {
        return state;
    }

    /**
     * Returns the state of the hold as a holder should read it: IN_DOUBT for a HELD hold while the process likely just
     * came out of a pause of half its session or more, which the tracker has not yet been told of ({@link
     * PauseWatch}); otherwise {@link #state()}. What every reader outside the engine's bookkeeping sees, and what
     * {@link Admission} judges. Does not block; no ZooKeeper call.
     */
    public LockState observedState() {
        LockState now = state;
        return now == LockState.HELD && queue.context().tracker().suspectsPause() ? LockState.IN_DOUBT : now;
    }

    /** Returns how long ago the lock was granted. */
    @Override
    public synchronized long heldNanos() {
        return System.nanoTime() - grantedNanos;
    }

    /** The node itself, as its own first hold ({@link Hold}). */
    @Override
    public LockNode node() {
        return this;
    }

    /** Zero: as a hold, the node is its own first ({@link Hold}). */
    @Override
    public int pass() {
        return 0;
    }

    /** The fencing token of the node's first hold ({@link Hold#token()}). */
    @Override
    public long token() {
        return FencingToken.of(czxid(), 0);
    }

    /** As a hold, the state a holder reads: {@link #observedState()}. */
    @Override
    public LockState state() {
        return observedState();
    }

    /**
     * Moves the hold to {@code next} unless it is already LOST (which is final); returns the event, or null if nothing
     * changed.
     */
    public LockStateEvent moveTo(LockState next) {
        LockState previousState;
        synchronized (this) {
            previousState = state;
            if (previousState == null || previousState == next || previousState == LockState.LOST) {
                return null;
            }
            state = next;
        }
        return eventOf(previousState, next);
    }

    /**
     * Moves the hold from {@code expected} to {@code next} only if it is in {@code expected} now: the move of a decision
     * taken on an older look at the hold, which a newer move must win over. LOST is final. Does not block.
     *
     * @return whether the hold moved; if so, {@link #eventOf} makes its event
     */
    public synchronized boolean compareAndMove(LockState expected, LockState next) {
        if (state == null || state != expected || expected == LockState.LOST || expected == next) {
            return false;
        }
        state = next;
        return true;
    }

    /**
     * The event of a move of this hold from {@code previousState} to {@code next}. Waits for the creation zxid as
     * {@link #czxid()} does, so never call it under a lock that a notifier needs.
     */
    public LockStateEvent eventOf(LockState previousState, LockState next) {
        return new LockStateEvent(queue.path(), path(), FencingToken.of(czxid(), 0), sessionId, previousState, next);
    }

    /**
     * Tells the lock's listeners and then {@code clientListeners}; a listener that throws is logged and skipped. The
     * client's tracker logs one line for every hold that moved at once; this logs each hold at DEBUG.
     */
    public void announce(LockStateEvent event, Iterable<LockStateListener> clientListeners) {
        logger.debug("{}: {} is {} ({} before)", queue.path(), this, event.state(), event.previous());
        for (LockStateListener listener : queue.listeners()) {
            tell(listener, event);
        }
        for (LockStateListener listener : clientListeners) {
            tell(listener, event);
        }
        queue.nodeStateChanged(this, event.state());
    }

    private static void tell(LockStateListener listener, LockStateEvent event) {
        try {
            listener.stateChanged(event);
        } catch (RuntimeException e) {
            logger.warn("{}: lock state listener {} threw on {}", event.lockPath(), listener, event, e);
        }
    }

    @Override
    public String toString() {
        String shown = czxid != 0 ? "0x" + Long.toHexString(czxid) : "pending";
        return path() + " (czxid " + shown + ", session 0x" + Long.toHexString(sessionId) + ")";
    }
}
