package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.locks.holds.HoldCounts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.transaction.CuratorOp;

/**
 * The public methods every single-path lock has (state, fencing, listeners, inspection, asynchronous acquire), each
 * one line handed to the lock's engine {@link LockCore}, where a hold begins and ends. Subclasses decide who owns a
 * hold: the current thread ({@link ThreadOwnedLock}) or the instance ({@link ZkExclusiveLock}). Safe for use by
 * multiple threads.
 */
abstract class AbstractZkLock extends TimedLock {
    final LockCore core;

    AbstractZkLock(LockCore core) {
        this.core = core;
    }

    /**
     * Returns the state of the caller's hold (the current thread's for a lock owned per thread, the instance's for
     * {@link ZkExclusiveLock}): HELD, IN_DOUBT while the connection is suspended, or LOST once the session ended or our
     * node was found gone. No ZooKeeper call.
     *
     * @return the state, or empty if there is no such hold
     */
    public Optional<LockState> holdState() {
        return Optional.ofNullable(currentHold()).map(Hold::state);
    }

    /**
     * Returns the fencing token of the caller's hold, which is larger for every later exclusive or write hold of this
     * path: across processes and the whole ensemble, after the container parent was reaped and made again, and for the
     * threads that pass the lock locally with local hand-off ({@link ZkLockBuilder}; the local readers of one read node
     * share its token). It is made of our node's creation zxid and the
     * number of holds of that node before this one ({@link FencingToken}). Pass it with every write to a resource the
     * lock protects, and have the resource reject a token smaller than the largest it has seen: a write issued under an
     * earlier hold and delayed past a later hold's write is then refused. No ZooKeeper call.
     *
     * @return the token, a positive number
     * @throws IllegalMonitorStateException if there is no such hold
     */
    public long fencingToken() {
        return requireHold().token();
    }

    /**
     * Returns a check of our node for a Curator transaction, so that a write to ZooKeeper commits only while the
     * caller's hold is in place: {@code client.transaction().forOperations(lock.holdCheck(), write)} fails, writing
     * nothing, once our node is gone. No ZooKeeper call until the transaction runs.
     *
     * @return a check operation on our node (any version)
     * @throws IllegalMonitorStateException if there is no such hold
     */
    public CuratorOp holdCheck() {
        LockNode node = requireHold().node();
        LockPath path = core.path();
        try {
            return path.client().transactionOp().check().forPath(node.path());
        } catch (Exception e) {
            throw path.callFailure("prepare a check of " + node.path(), e);
        }
    }

    /**
     * Ends, from any thread, the hold that stands on {@code node}: what a time to live or a watchdog does to a holder
     * that kept the lock too long. The hold is {@linkplain LockState#LOST LOST} before this method returns (its
     * listeners hear it on the calling thread; a JFR recording names the cause {@code EXPIRED}), so the lock never
     * passes that node to another thread of this process; then the node is deleted, which lets the next waiter in. The
     * holder learns of it from {@link #holdState()} and the listeners, and its release then only clears its local
     * record. With local hand-off, every local holder of that node loses it (the readers that share one read node).
     *
     * <p>Cost: one delete, sent without waiting (Curator's guaranteed delete if the connection is down); no call when
     * no hold stands on the node.
     *
     * @param node the full path of the hold's node, as {@code getLockPath()} names it to the holder
     * @return true if the hold was ended; false if no hold of this lock stands on that node (released, or lost before)
     * @throws NullPointerException if {@code node} is null
     */
    public boolean expire(String node) {
        return core.expire(Objects.requireNonNull(node, "node"));
    }

    /**
     * Adds a listener that hears every state change of every hold of this lock. No ZooKeeper call: the client's one
     * connection-state listener does the watching.
     *
     * @param listener the listener; called on a notification thread, so it must not block
     * @throws NullPointerException if {@code listener} is null
     */
    public void addStateListener(LockStateListener listener) {
        core.path().listeners().add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener added with {@link #addStateListener}; does nothing if it is not there.
     *
     * @param listener the listener to remove
     * @throws NullPointerException if {@code listener} is null
     */
    public void removeStateListener(LockStateListener listener) {
        core.path().listeners().remove(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Returns the full paths of the nodes in the queue, holder first: for monitoring, not for synchronization control.
     * One listing.
     *
     * @return the paths in queue order (relative to the client's namespace), empty if the lock path does not exist
     * @throws InterruptedException if the thread is interrupted while listing
     * @throws ZkLockException if ZooKeeper refuses the listing
     */
    public List<String> participantNodes() throws InterruptedException {
        return core.path().participantNodes();
    }

    /**
     * Returns the lock path, relative to the client's namespace.
     *
     * @return the path given to the constructor
     */
    public String path() {
        return core.path().path();
    }

    /**
     * Acquires the lock without blocking a thread: the future completes with a hold that belongs to the hold itself,
     * not to a thread, so any thread may close it. Each call takes its own place in the queue and completes as its own
     * hold, whichever thread asks (an async hold is not reentrant, and never counts as a hold of the calling thread).
     * The wait rides on ZooKeeper watches; dependent stages run on the common fork-join pool, never on ZooKeeper's
     * event thread. Cancelling the future withdraws from the queue and deletes our node.
     *
     * <p>Cost: as {@link #acquire()}; no thread waits.
     *
     * @param timeout the longest time to wait; zero or negative makes a single try that never waits
     * @return a future of the hold; it fails with {@link LockTimeoutException} if the time runs out (nothing is left
     *     behind), with {@link ZkLockException} if ZooKeeper refuses a request
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<LockHold> acquireAsync(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return holdLater(timeout);
    }

    /**
     * Acquires the lock without blocking a thread, waiting as long as it takes; see {@link #acquireAsync(Duration)}.
     *
     * @return a future of the hold; it fails with {@link ZkLockException} if ZooKeeper refuses a request
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<LockHold> acquireAsync() {
        return holdLater(null);
    }

    @Override
    String lockName() {
        return core.path().path();
    }

    @Override
    LockHold newHold() {
        return holdOf(requireHold(), this::release);
    }

    /** Returns {@code hold} as a value for try-with-resources, whose close runs {@code release}. */
    LockHold holdOf(Hold hold, Runnable release) {
        return new LockHold(
                path(),
                Map.of(path(), hold.token()),
                hold::state,
                release,
                () -> core.expire(hold.node().path()),
                hold.node().path());
    }

    /** An async acquire: the engine's hold as a {@link LockHold} that belongs to itself; cancelling withdraws. */
    private CompletableFuture<LockHold> holdLater(Duration timeout) {
        CompletableFuture<Hold> granted = core.acquireAsync(timeout);
        CompletableFuture<LockHold> result = new CompletableFuture<>();
        granted.whenComplete((hold, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (!result.complete(holdOf(hold, () -> core.release(hold, hold.heldNanos())))) {
                core.release(hold, hold.heldNanos()); // cancelled as it was granted
            }
        });
        result.whenComplete((hold, failure) -> {
            if (result.isCancelled()) {
                granted.cancel(false);
            }
        });
        return result;
    }

    void setHooks(QueueHooks hooks) {
        core.path().setHooks(hooks);
    }

    /** Returns the hold the caller refers to (the current thread's, or the instance's), or null. */
    abstract Hold currentHold();

    /** Returns the caller's hold; throws the JDK's exception for an unheld monitor if there is none. */
    Hold requireHold() {
        Hold hold = currentHold();
        if (hold == null) {
            throw HoldCounts.notHeld(path());
        }
        return hold;
    }
}
