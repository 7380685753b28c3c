package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.locks.engine.RevocationWatch;
import dev.zklock.recipes.locks.holds.HoldCounts;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every lock owned per thread shares: local hold counts, so that re-entry and inner releases cost no ZooKeeper
 * call. Safe for use by multiple threads; ownership is per thread.
 */
abstract class ThreadOwnedLock extends AbstractZkLock {
    final HoldCounts<Hold> holds;
    /** Threads inside a first acquire of this instance: a registry must not forget an instance in use. */
    private final AtomicInteger busy = new AtomicInteger();

    ThreadOwnedLock(LockCore core) {
        super(core);
        this.holds = new HoldCounts<>(core.path().path());
    }

    /**
     * Releases one hold of the current thread. When the hold count reaches zero our node is deleted (one request) and
     * the next waiter is woken; inner releases cost nothing. If the connection is down, the delete is left to Curator's
     * guaranteed delete, which retries when the connection comes back, and the method returns normally: the local hold
     * is gone either way. Releasing a {@linkplain LockState#LOST lost} hold clears the local hold and deletes what may
     * be left of its node (a server that was down may not have expired the old session yet), throwing nothing for a
     * node already gone; after the client was closed it only clears the local hold.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws ZkLockException if ZooKeeper refuses the delete (for example for lack of permission)
     */
    @Override
    public void release() {
        boolean timed = core.isObserved(); // no clock read for a listener that is not there
        long heldNanos = timed ? holds.heldNanos() : 0;
        Hold hold = holds.release();
        if (hold != null) {
            // A hold taken before any listener was there was recorded untimed: its node's own time stands in (for a
            // local pass, since the node was taken: at most that long).
            core.release(hold, heldNanos == HoldCounts.UNTIMED ? hold.heldNanos() : heldNanos, timed);
        }
    }

    /**
     * Tells whether any thread of this process holds the lock through this instance: from a first acquire until the
     * matching release, a {@linkplain LockState#LOST lost} hold included, as Curator's {@code InterProcessMutex}
     * answers. Whether a hold still stands is {@link #holdState()}'s answer. For monitoring, not for synchronization
     * control; no ZooKeeper call.
     *
     * @return {@code true} if some thread holds this lock instance and has not released it yet
     */
    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    /**
     * Tells whether the current thread holds the lock: whether it acquired and has not yet made the matching release.
     * A {@linkplain LockState#LOST lost} hold still counts until the thread releases it, so that the usual ending
     * {@code finally { if (lock.isHeldByCurrentThread()) lock.release(); }} releases it, and the thread can acquire
     * again; {@link #holdState()} tells whether the hold still stands. No ZooKeeper call.
     *
     * <p>Why a lost hold counts: the answer is the thread's local record, which only {@link #release()} ends, as in
     * Curator and the JDK. Were it false after a loss, code that releases only what it holds would skip the release,
     * and the thread's next acquire would throw {@link IllegalStateException} (a lost hold must be released first) for
     * as long as the thread lives. The loss itself is never hidden: {@code holdState()} says {@code LOST}, listeners
     * hear it, {@link #holdCheck()} fails in a transaction, and the fencing token of the next hold is larger.
     *
     * @return {@code true} if the current thread holds this lock and has not released it yet
     */
    public boolean isHeldByCurrentThread() {
        return holds.heldByCurrentThread() != null;
    }

    /**
     * Tells whether the current thread holds the lock: Curator's name of {@link #isHeldByCurrentThread()}, with the
     * same answer (true until the matching release, a lost hold included), so that code moving from
     * {@code InterProcessMutex} needs only its type changed. No ZooKeeper call.
     *
     * @return {@code true} if the current thread holds this lock and has not released it yet
     */
    public boolean isOwnedByCurrentThread() {
        return isHeldByCurrentThread();
    }

    /**
     * Returns the full paths of the nodes in the queue: Curator's name of {@link #participantNodes()}, for code moving
     * from {@code InterProcessMutex}. One listing.
     *
     * @return the paths in queue order (relative to the client's namespace)
     * @throws InterruptedException if the thread is interrupted while listing
     * @throws ZkLockException if ZooKeeper refuses the listing
     */
    public Collection<String> getParticipantNodes() throws InterruptedException {
        return participantNodes();
    }

    /**
     * Returns the path of the current thread's lock node, as Curator's {@code InterProcessMutex.getLockPath()} does: for
     * logs and for checks of one's own node. No ZooKeeper call.
     *
     * @return the node's full path (relative to the client's namespace), also for a lost hold until it is released; or
     *     null if the current thread holds nothing
     */
    public String getLockPath() {
        Hold hold = holds.heldByCurrentThread();
        return hold == null ? null : hold.node().path();
    }

    /**
     * Returns the number of holds of the current thread: acquisitions not yet matched by a release. No ZooKeeper call.
     *
     * @return the hold count, or zero if the current thread does not hold the lock
     */
    public int getHoldCount() {
        return holds.holdCount();
    }

    /** Makes every later hold of this lock revocable: {@code listenerCall} runs on {@code executor} per request. */
    void revocable(Runnable listenerCall, Executor executor) {
        Objects.requireNonNull(executor, "executor");
        core.path().setRevocation(new RevocationWatch(listenerCall, executor));
    }

    /** Tells whether a thread holds this instance (even a lost hold) or is acquiring it; for a registry's eviction. */
    boolean isInUse() {
        return busy.get() > 0 || !holds.isEmpty() || core.isCohortActive();
    }

    @Override
    final Hold currentHold() {
        return holds.heldByCurrentThread();
    }

    @Override
    final boolean acquire(Deadline deadline) throws InterruptedException {
        core.requireNotLost(holds.heldByCurrentThread());
        if (holds.reenter()) {
            return true;
        }
        busy.incrementAndGet();
        try {
            Optional<Hold> hold = enter(deadline);
            hold.ifPresent(granted -> {
                QueueHooks hooks = core.path().hooks();
                if (hooks != QueueHooks.NONE) { // a node's name is a substring made on each call
                    hooks.granted(core.path().path(), granted.node().name());
                }
                // Recorded before busy falls: a registry never sees the instance unused meanwhile. Timed only for a
                // metrics listener (a clock read on a local hand-off's path to the new holder).
                holds.hold(granted, core.isObserved());
            });
            return hold.isPresent();
        } finally {
            busy.decrementAndGet();
        }
    }

    /**
     * Takes the current thread's first hold, with one call into the engine; a lock whose first hold depends on the
     * thread's other holds (a read/write lock's upgrade and downgrade) decides here, before any queueing.
     */
    Optional<Hold> enter(Deadline deadline) throws InterruptedException {
        return core.acquire(deadline);
    }
}
