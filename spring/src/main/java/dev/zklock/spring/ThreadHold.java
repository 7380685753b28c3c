package dev.zklock.spring;

import dev.zklock.recipes.locks.LockState;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.TaskScheduler;

/**
 * One thread's hold of a {@link ZkSpringLock}: how often the thread entered, the hold's own time to live, and how the
 * hold stands on ZooKeeper ({@link Grant}). Safe for use by multiple threads: the owning thread enters, exits and
 * renews; the registry's timer expires; the renewal scheduler renews.
 *
 * <p>Implementation notes.
 *
 * <ol>
 *   <li>The count and the two ends of a hold (its time to live ran out; its owner's last unlock) live in one atomic
 *       word. A re-entry counts only with a compare-and-set that finds the hold not expired, and an expiry sets its
 *       bit only with one that finds the hold not ended; so a re-entry either comes before the expiry, and its count
 *       is released by an unlock that then reports the expiry, or after it, and throws having counted nothing
 *       ({@code ZkSpringLockTest.lockWithTtl_reentryAsTheTtlRunsOut_leavesNoCountBehind}).
 *   <li>The time to live is a timer of this hold, never of the lock: another thread's hold of the same lock has its
 *       own, and nothing one thread does starts, ends or reads another's
 *       ({@code ZkSpringLockTest.unlock_afterAnotherThreadsTtlRanOut_throwsOnlyForTheExpiredHold},
 *       {@code lockWithTtl_anotherThreadsLateUnlock_leavesTheNewHoldsTtlRunning}).
 *   <li>A restart of the time to live makes a new generation under this object's monitor, and a timer of an older
 *       generation expires nothing: a renewal and the timer it replaces never both count.
 *   <li>The grant is ended from outside (LOST, then its node deleted) before the owner's last unlock lets the lock go
 *       on: with local hand-off the lock would otherwise pass the node to a local waiter while its delete is on its
 *       way. So the unlock of an expired hold waits until the expiry has run, within one request timeout.
 *   <li>With the registry's renewal scheduler, a hold with a time to live is renewed every third of it, on the
 *       scheduler's thread, as Spring's Redis registry renews its locks; a renewal restarts the timer only, so a
 *       renewal and a restart by the owner (a re-entry or {@code renewLock} with a new time to live, which reschedules
 *       the renewal) share note 3's generations. The renewal stops when the hold expires or ends
 *       ({@code ZkSpringLockRegistryTest.setRenewalTaskScheduler_holdWithATtl_isRenewedEveryThirdOfItsTtl}).
 *   <li>A first hold's time to live starts when its lock call started, as a Redis or JDBC lock's starts when the call
 *       reaches the store, or at most {@link #MAX_HEAD_START} before the grant if the call waited longer (a waiter
 *       loses that much of its time at most). Its end is judged by the clock, not by the timer: the timer thread may
 *       run late on a busy machine, and a paused process runs no timer at all. So every start and restart writes the
 *       end on the hold's node ({@link TtlStamps}; the first before the lock call returns), another process's no-wait
 *       try that finds the key held deletes the holder's node once that end is past by its clock, and the owner's
 *       re-entry, renewal, state and unlock expire the hold themselves once its end is past, timer or not. The timer
 *       only makes sure the node goes when nobody looks. Before, the timer alone ended a hold and sent its delete a
 *       tenth of the time early: another process's try when the time was up found the key still held 1 time in 20 on
 *       a loaded machine, 1 in 40 in CI
 *       ({@code ZkSpringLockTest.lockWithTtl_anotherProcessTriesWhenTheTtlIsUp_findsTheKeyFree},
 *       {@code lockWithTtl_holderProcessesTimerStuck_anotherProcessTakesTheKeyWhenTheTtlIsUp}). A hold that passes its
 *       node to a local waiter takes its stamp off first, within one request timeout (or ends the node if it cannot),
 *       so that the next holder is never judged by its time
 *       ({@code lockWithTtl_passedOnToALocalHoldWithoutOne_isNotTakenOverAfterIt}).
 *   <li>A re-entry into a hold whose time to live ran out takes the lock anew, as Spring's JDBC and Redis locks do:
 *       the expired grant is let go of (its node is gone), the lock is acquired as a first acquire is (at once for
 *       {@code tryLock()}, within its time for a timed try, waiting for {@code lock()}), and if it is, a new hold
 *       with a new time to live counts the old one's entries and this one, and is not expired: its unlocks throw
 *       nothing. If it is not (another process holds the key), the re-entry fails as a try fails, the old hold stays
 *       expired, and its last unlock throws ({@code ZkSpringLockTest.tryLock_afterTheTtlRanOut_takesTheKeyAnewIfFree}).
 *       A hold in doubt or lost with its session or its node is never entered again: that re-entry throws.
 * </ol>
 */
final class ThreadHold {
    /** How a hold stands on ZooKeeper. */
    interface Grant {
        /** Returns the hold's state as the client knows it; called by the owning thread. */
        LockState state();

        /** Returns the hold's fencing token; called by the owning thread. */
        long token();

        /** Ends the hold at its owner's last unlock: one delete, or a local pass; called by the owning thread. */
        void release();

        /** Ends the hold from outside, on the registry's timer: LOST at once, then its node deleted; never blocks. */
        void expire();

        /** The full path of the hold's node: where its time to live is written. */
        String node();

        /** Tells whether the release may pass the node on to another local hold (local hand-off), stamp and all. */
        boolean passesNodeOn();
    }

    private static final Logger logger = LoggerFactory.getLogger(ThreadHold.class);
    private static final long COUNT = Integer.MAX_VALUE;
    private static final long ENDED = 1L << 40;
    private static final long EXPIRED = 1L << 41;
    private static final Duration MIN_RENEWAL_PERIOD = Duration.ofMillis(1);

    /** The most a first hold's time to live starts before its grant (note 6). */
    static final Duration MAX_HEAD_START = Duration.ofMillis(10);

    private final String lockName;
    private final Grant grant;
    private final TtlTimer timer;
    private final TtlStamps stamps;
    private final Supplier<TaskScheduler> renewals; // the registry's renewal scheduler now, or null
    private final AtomicLong word = new AtomicLong(1); // the count, ENDED and EXPIRED: see note 1
    private final CompletableFuture<Void> expiryRun = new CompletableFuture<>(); // done once an expiry ended the grant

    private Duration ttl; // guarded by this; null: the hold has none
    private boolean grantReleased; // owner only: the grant of an expired hold let go of to take the lock anew
    private ScheduledFuture<?> pending; // guarded by this
    private long generation; // guarded by this: see note 3
    private long endNanos; // guarded by this: when the time to live of this generation ends, if timed
    private boolean timed; // guarded by this: a time to live runs, with a timer
    private CompletableFuture<Boolean> lastStamp; // guarded by this: the write of this generation's end, or null
    private boolean stamped; // guarded by this: an end was written on the node
    private ScheduledFuture<?> renewal; // guarded by this: the scheduler's renewal, every third of ttl
    private Duration renewedTtl; // guarded by this: the ttl the renewal was scheduled for

    /**
     * @param lockName the lock as messages name it: its key and path
     * @param grant how the hold stands on ZooKeeper
     * @param timer the registry's timer
     * @param stamps where a time to live is written for other processes to judge
     * @param renewals the registry's renewal scheduler when asked, or null if it has none
     * @param ttl the hold's time to live, or null for none
     */
    ThreadHold(
            String lockName,
            Grant grant,
            TtlTimer timer,
            TtlStamps stamps,
            Supplier<TaskScheduler> renewals,
            Duration ttl,
            long ttlStartNanos) {
        this(lockName, grant, timer, stamps, renewals, ttl, ttlStartNanos, 1);
    }

    private ThreadHold(
            String lockName,
            Grant grant,
            TtlTimer timer,
            TtlStamps stamps,
            Supplier<TaskScheduler> renewals,
            Duration ttl,
            long ttlStartNanos,
            long count) {
        this.lockName = lockName;
        this.grant = grant;
        this.timer = timer;
        this.stamps = stamps;
        this.renewals = renewals;
        word.set(count);
        if (ttl != null) {
            restart(ttl, Math.max(0, System.nanoTime() - ttlStartNanos)); // the owner awaits its stamp (note 6)
        }
    }

    /**
     * When a first hold's time to live starts (note 6): when its lock call started, or {@link #MAX_HEAD_START} before
     * its grant if the call waited longer.
     *
     * @param calledNanos {@link System#nanoTime()} when the lock call started
     * @param grantedNanos {@link System#nanoTime()} when the hold was granted
     */
    static long ttlStart(long calledNanos, long grantedNanos) {
        return Math.max(calledNanos, grantedNanos - MAX_HEAD_START.toNanos());
    }

    /**
     * Enters again, in one step with the check that the hold stands (note 1); a re-entry with a time to live restarts
     * it. Owner only.
     *
     * @param newTtl the time to live to restart the hold's with, or null to leave it as it is
     * @param beforeCount a test seam, run after the checks and before the count
     * @return true if counted; false, counting nothing, if the hold's time to live has run out: the caller takes the
     *     lock anew (note 7)
     * @throws IllegalStateException if the hold is in doubt or lost (its session, its node)
     */
    boolean reenter(Duration newTtl, Runnable beforeCount) {
        expireIfDue();
        if (isExpired()) {
            return false;
        }
        requireStanding();
        beforeCount.run();
        long seen;
        do {
            seen = word.get();
            if ((seen & EXPIRED) != 0) {
                return false;
            }
            if ((seen & COUNT) == COUNT) {
                throw new IllegalStateException("maximum hold count exceeded for " + lockName);
            }
        } while (!word.compareAndSet(seen, seen + 1));
        if (newTtl != null) {
            restart(newTtl); // false: the time ran out just after the count, and the last unlock will say so
        }
        return true;
    }

    /** Tells whether the hold's time to live ran out. */
    boolean isExpired() {
        return (word.get() & EXPIRED) != 0;
    }

    /**
     * Lets go of the grant of a hold whose time to live ran out, once its expiry has run, so that the owner may take
     * the lock anew (note 7); its count stays, for the owner's unlocks. Owner only; once.
     */
    void dropExpiredGrant() {
        awaitExpiry();
        if (!grantReleased) {
            grantReleased = true;
            grant.release();
        }
    }

    /**
     * The owner took the lock anew after this hold's time to live ran out (note 7): the hold that replaces it, counting
     * this one's entries and the new one.
     *
     * @param renewed the new grant
     * @param newTtl the new hold's time to live, or null for this one's
     * @param ttlStartNanos when that time to live starts
     */
    ThreadHold takenAnew(Grant renewed, Duration newTtl, long ttlStartNanos) {
        long count = (word.get() & COUNT) + 1;
        return new ThreadHold(
                lockName, renewed, timer, stamps, renewals, newTtl != null ? newTtl : ttl(), ttlStartNanos, count);
    }

    /**
     * Counts one unlock; returns whether it was the last, which ends the time to live. Owner only.
     *
     * @return true if the hold is over and must be {@linkplain #release() released}
     */
    boolean exit() {
        expireIfDue();
        long seen;
        long next;
        do {
            seen = word.get();
            long count = seen & COUNT;
            next = count > 1 ? seen - 1 : (seen & EXPIRED) | ENDED;
        } while (!word.compareAndSet(seen, next));
        if ((next & ENDED) == 0) {
            return false;
        }
        synchronized (this) {
            generation++;
            if (pending != null) {
                pending.cancel(false);
            }
            stopRenewal();
        }
        return true;
    }

    /**
     * Releases the grant after the last {@link #exit()}, a lost one included, so the thread may lock again. Owner only.
     *
     * @throws ConcurrentModificationException if the hold was lost before the unlock: its time to live ran out, its
     *     session ended, or its node was found deleted
     */
    void release() {
        boolean ranOut = (word.get() & EXPIRED) != 0;
        if (ranOut) {
            awaitExpiry();
        }
        LockState before = ranOut ? LockState.LOST : grant.state();
        if (!grantReleased) {
            if (before == LockState.HELD) { // a lost node is passed on to nobody; one in doubt waits for no reply
                unstamp();
            }
            grant.release();
        }
        if (ranOut) {
            // worded as Spring's Redis and JDBC registries word it, so that what watches their logs finds it
            throw new ConcurrentModificationException("Lock was released in the store due to expiration: " + lockName
                    + " expired after its ttl of " + ttl() + " before it was unlocked; another process may have held it"
                    + " since");
        }
        if (before == LockState.LOST) {
            throw new ConcurrentModificationException(lockName + " was lost before it was unlocked (its session ended"
                    + " or its node was deleted): another process may have held it since");
        }
    }

    /**
     * Restarts the time to live with {@code newTtl}, or with the one the hold has; a hold without one has nothing to
     * renew. Owner only.
     *
     * @throws IllegalStateException if the hold expired, is in doubt or is lost
     */
    void renew(Duration newTtl) {
        expireIfDue();
        requireStanding();
        Duration use = newTtl != null ? newTtl : ttl();
        if (use != null && !restart(use)) {
            throw expiredRefusal();
        }
        awaitStamp(System.nanoTime() + timer.requestTimeoutNanos());
    }

    /** Returns the hold's state: LOST once its time to live ran out, else its grant's. Owner only. */
    LockState state() {
        expireIfDue();
        return (word.get() & EXPIRED) != 0 ? LockState.LOST : grant.state();
    }

    long token() {
        return grant.token();
    }

    synchronized Duration ttl() {
        return ttl;
    }

    /**
     * Starts the time to live anew, and with a renewal scheduler, its renewal every third of it (note 5); false if the
     * hold expired or ended. No timer, and no renewal, once the registry is closed.
     */
    private synchronized boolean restart(Duration newTtl) {
        return restart(newTtl, 0);
    }

    /** {@link #restart(Duration)} for a time to live that started {@code elapsedNanos} ago. */
    private synchronized boolean restart(Duration newTtl, long elapsedNanos) {
        if (!restartTimer(newTtl, elapsedNanos)) {
            return false;
        }
        TaskScheduler scheduler = renewals.get();
        if (pending == null || scheduler == null) {
            stopRenewal();
        } else if (renewal == null || !newTtl.equals(renewedTtl)) {
            stopRenewal();
            Duration period = newTtl.dividedBy(3);
            if (period.compareTo(MIN_RENEWAL_PERIOD) < 0) {
                period = MIN_RENEWAL_PERIOD;
            }
            try {
                renewal = scheduler.scheduleWithFixedDelay(
                        this::renewOnSchedule, scheduler.getClock().instant().plus(period), period);
                renewedTtl = newTtl;
            } catch (RuntimeException rejected) {
                logger.warn("{}: the renewal scheduler refused the renewal of the hold's ttl", lockName, rejected);
            }
        }
        return true;
    }

    /** Restarts the timer alone; false if the hold expired or ended. */
    private synchronized boolean restartTimer(Duration newTtl, long elapsedNanos) {
        if ((word.get() & (EXPIRED | ENDED)) != 0 || (timed && System.nanoTime() - endNanos >= 0)) {
            return false; // past its end by the clock: a late renewal keeps nothing (note 6)
        }
        long current = ++generation;
        if (pending != null) {
            pending.cancel(false);
        }
        ttl = newTtl;
        long delay = TtlTimer.saturatedNanos(newTtl);
        boolean bounded = delay != Long.MAX_VALUE;
        pending = timer.schedule(() -> expire(current), bounded ? delay - elapsedNanos : delay);
        timed = pending != null && bounded;
        lastStamp = null;
        if (timed) {
            endNanos = System.nanoTime() - elapsedNanos + delay;
            // floor(wall) + floor(x) <= floor(wall + x): the end written is never after the hold's own (note 6)
            long until = System.currentTimeMillis() + Math.floorDiv(delay - elapsedNanos, 1_000_000L);
            lastStamp = stamps.write(grant.node(), TtlStamps.until(until)); // sent under the monitor: in order
            stamped = true;
        }
        return true;
    }

    /** Expires the hold here if its time to live is up by the clock, whether or not the timer ran (note 6). */
    private void expireIfDue() {
        long current;
        synchronized (this) {
            if (!timed || System.nanoTime() - endNanos < 0) {
                return;
            }
            current = generation;
        }
        expire(current);
    }

    /**
     * Waits for the write of the time to live's end until {@code deadlineNanos}, but at most one request timeout: a
     * lock call returns once its hold's end is on the node, so that another process judges it (note 6); a timed try
     * waits no longer than its own time. Owner only.
     */
    void awaitStamp(long deadlineNanos) {
        CompletableFuture<Boolean> written;
        synchronized (this) {
            written = lastStamp;
        }
        long wait = timer.requestTimeoutNanos();
        if (deadlineNanos != Long.MAX_VALUE) {
            wait = Math.min(Math.max(0, deadlineNanos - System.nanoTime()), wait);
        }
        if (written != null && !TtlStamps.await(written, wait)) {
            logger.warn(
                    "{}: the end of the hold's ttl was not written on node {}; only its timer ends it",
                    lockName,
                    grant.node());
        }
    }

    /**
     * Takes the end of the time to live off the node before the release passes it to another local hold; if that
     * fails within one request timeout, the node is ended instead, so that no hold is judged by another's time.
     */
    private void unstamp() {
        boolean written;
        synchronized (this) {
            written = stamped;
        }
        if (written
                && grant.passesNodeOn()
                && !TtlStamps.await(stamps.clear(grant.node()), timer.requestTimeoutNanos())) {
            logger.warn(
                    "{}: the end of the hold's ttl was not taken off node {}; the node is ended",
                    lockName,
                    grant.node());
            grant.expire();
        }
    }

    /** The renewal scheduler's task: restarts the time to live it has, until the hold expires or ends. */
    private synchronized void renewOnSchedule() {
        if (ttl == null || !restartTimer(ttl, 0) || pending == null) {
            stopRenewal();
        }
    }

    private synchronized void stopRenewal() {
        if (renewal != null) {
            renewal.cancel(false);
            renewal = null;
            renewedTtl = null;
        }
    }

    /** The time to live ran out, on the registry's timer: the hold expires unless it ended or was renewed since. */
    private void expire(long ofGeneration) {
        Duration ranOut;
        synchronized (this) {
            if (ofGeneration != generation) {
                return;
            }
            long seen;
            do {
                seen = word.get();
                if ((seen & (EXPIRED | ENDED)) != 0) {
                    return;
                }
            } while (!word.compareAndSet(seen, seen | EXPIRED));
            ranOut = ttl;
            stopRenewal();
        }
        logger.warn("{}: the hold's ttl of {} ran out; expiring its node {}", lockName, ranOut, grant.node());
        try {
            grant.expire();
        } finally {
            expiryRun.complete(null);
        }
    }

    /** Refuses a grant on top of a hold that is past its time to live, in doubt, or lost. */
    private void requireStanding() {
        LockState state = grant.state();
        if (state != LockState.HELD && !isExpired()) { // an expiry is the caller's to handle (note 7)
            throw new IllegalStateException(lockName + " is " + state + " for "
                    + Thread.currentThread().getName() + ": unlock it, then lock it again");
        }
    }

    private IllegalStateException expiredRefusal() {
        return new IllegalStateException(
                lockName + " expired after its ttl of " + ttl() + ": unlock it, then lock it again");
    }

    /** Waits for the expiry under way, which never blocks on ZooKeeper: within one request timeout all the same. */
    private void awaitExpiry() {
        if (!TtlStamps.awaitDone(expiryRun, System.nanoTime() + timer.requestTimeoutNanos())) {
            logger.warn("{}: the expiry of node {} did not end within a request timeout", lockName, grant.node());
        }
    }
}
