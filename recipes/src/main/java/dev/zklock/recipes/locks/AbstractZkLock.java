package dev.zklock.recipes.locks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * What every single-path lock shares, on top of one {@link LockQueue}: the timed acquire methods, state listeners,
 * fencing and inspection. Subclasses decide who owns a hold: the current thread (reentrant locks) or the instance
 * ({@link ZkExclusiveLock}). Safe for use by multiple threads.
 */
abstract class AbstractZkLock implements InterProcessLock {
    final LockQueue queue;
    final List<LockStateListener> listeners = new CopyOnWriteArrayList<>();

    AbstractZkLock(LockQueue queue) {
        this.queue = queue;
    }

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * <p>If the lock is reentrant and the current thread holds it, the hold count goes up by one and the method returns
     * at once, with no ZooKeeper call. Otherwise the caller takes a place in the queue and waits until one of these
     * happens:
     *
     * <ul>
     *   <li>the lock becomes ours;
     *   <li>the thread is interrupted: our node is deleted and {@link InterruptedException} is thrown;
     *   <li>ZooKeeper refuses a request: our node is deleted and {@link ZkLockException} is thrown.
     * </ul>
     *
     * <p>If the client's session expires while waiting, the wait goes on with a new node at the back of the queue.
     * Cost: see the class documentation.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was
     *     {@linkplain LockState#LOST lost} and not yet released
     */
    @Override
    public void acquire() throws InterruptedException {
        acquire(Deadline.forever());
    }

    /**
     * Acquires the lock if it becomes free within {@code time}.
     *
     * <p>As {@link #acquire()}, but the wait also ends when the time runs out: then our node is deleted and the method
     * returns {@code false}. A time of zero or less makes a single try that never waits, like
     * {@link java.util.concurrent.locks.Lock#tryLock()}. The time covers creating our node, recovering from a lost
     * connection and waiting; the method returns within it plus one request timeout (the client's connection timeout).
     *
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    @Override
    public boolean acquire(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(time, unit)));
    }

    /**
     * Acquires the lock if it becomes free within {@code timeout}; see {@link #acquire(long, TimeUnit)}.
     *
     * @param timeout the longest time to wait; zero or negative makes a single try that never waits
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request the lock needs
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed, or the caller's hold was lost and not
     *     yet released
     */
    public boolean acquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(timeout)));
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
     * Returns the fencing token of the caller's hold: the creation zxid of our node, which is larger for every later
     * acquisition of this path, across the whole ensemble and even after the container parent was reaped and made
     * again. Pass it with every write to a resource the lock protects, and have the resource reject a token smaller
     * than the largest it has seen. No ZooKeeper call.
     *
     * @return the token, a positive number
     * @throws IllegalMonitorStateException if there is no such hold
     */
    public long fencingToken() {
        return requireHold().node().token();
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
        return queue.checkOp(requireHold().node());
    }

    /**
     * Adds a listener that hears every state change of every hold of this lock. No ZooKeeper call: the client's one
     * connection-state listener does the watching.
     *
     * @param listener the listener; called on a notification thread, so it must not block
     * @throws NullPointerException if {@code listener} is null
     */
    public void addStateListener(LockStateListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener added with {@link #addStateListener}; does nothing if it is not there.
     *
     * @param listener the listener to remove
     * @throws NullPointerException if {@code listener} is null
     */
    public void removeStateListener(LockStateListener listener) {
        listeners.remove(Objects.requireNonNull(listener, "listener"));
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
        return queue.participantNodes();
    }

    /**
     * Returns the lock path, relative to the client's namespace.
     *
     * @return the path given to the constructor
     */
    public String path() {
        return queue.path();
    }

    void setHooks(QueueHooks hooks) {
        queue.setHooks(hooks);
    }

    /** Acquires until the deadline; true if the caller now holds the lock. */
    abstract boolean acquire(Deadline deadline) throws InterruptedException;

    /** Returns the hold the caller refers to (the current thread's, or the instance's), or null. */
    abstract Hold currentHold();

    /** Returns the caller's hold; throws the JDK's exception for an unheld monitor if there is none. */
    Hold requireHold() {
        return Optional.ofNullable(currentHold()).orElseThrow(() -> HoldCounts.notHeld(queue.path()));
    }

    /** Throws if the caller's hold was lost and not yet released: it must not be entered again, nor doubled. */
    void requireNotLost(Hold hold) {
        Checks.requireState(
                hold == null || hold.state() != LockState.LOST,
                "the hold of lock '%s' was lost (its session ended or its node went); release it before acquiring"
                        + " again",
                queue.path());
    }
}
