package dev.zklock.spring;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock of one key of a {@link ZkSpringLockRegistry}: Spring Integration's {@link DistributedLock} over a zklock
 * {@link ZkReentrantLock} on the key's path, with an optional time to live per hold.
 *
 * <h2>Semantics</h2>
 *
 * <p>Exclusive across processes, and with Spring's {@code ZookeeperLockRegistry} and Curator's
 * {@code InterProcessMutex} on the same path (the node layout is Curator's). Reentrant per thread: the thread that
 * locked must unlock, as often as it locked. Each thread's hold is its own: its state, its fencing token and its time
 * to live. A re-entry is granted only while the thread's hold stands: a hold in doubt (the connection is suspended) or
 * lost is never entered again, the re-entry throws {@link IllegalStateException}, and the thread must {@link #unlock()}
 * it. This is what lets {@code LockRegistryLeaderInitiator} step down at its next heartbeat once the lock cannot be
 * stood behind. A re-entry into a hold whose time to live ran out takes the lock anew, as Spring's JDBC and Redis
 * locks do: if the key is free it holds again, with a new time to live, and its unlocks throw nothing; if not, it
 * fails as a try or a wait fails, and the expired hold's last unlock throws. The check and the count of a re-entry
 * are one step: a time to live that runs out meanwhile finds the re-entry counted, or makes it take the lock anew.
 *
 * <p>A hold is lost when its session ends, when the client finds its node deleted, or when its time to live runs out.
 * The last {@link #unlock()} of a lost hold clears it, so that the thread may lock again, and throws {@link
 * ConcurrentModificationException}, as Spring's Redis and JDBC locks do when their store lost the lock: the lock was
 * not ours for a while, and what it protected may have been changed by another holder.
 *
 * <p><b>Time to live.</b> A hold may be given a time to live: by {@link #lock(Duration)} and {@link
 * #tryLock(Duration, Duration)}, or, for the forms without one, by the registry's {@linkplain
 * ZkSpringLockRegistry#setDefaultTtl(Duration) default}. The time belongs to one thread's hold, never to the lock:
 * another thread of this process that locks the key after it ran out holds with a state and a time to live of its own,
 * and only the thread whose time ran out hears of it. When the time runs out the hold ends by itself, as a Redis lock's
 * key expires: it goes {@link LockState#LOST}, then its node is deleted, so another process may take the lock. It
 * counts from the lock call, or from 10 ms before the grant if the call waited longer. Its end is judged by the clock,
 * as Spring's JDBC registry judges a row's: the end is written on the hold's node before the lock call returns, and
 * another process's {@link #tryLock()} that finds the key held past that end by its own clock deletes the holder's
 * node and takes the key, whether or not the holder's timer has run (a busy or paused holder process included;
 * {@code ZkSpringLockTest.lockWithTtl_anotherProcessTriesWhenTheTtlIsUp_findsTheKeyFree},
 * {@code lockWithTtl_holderProcessesTimerStuck_anotherProcessTakesTheKeyWhenTheTtlIsUp}); the holder's own re-entry,
 * renewal, {@link #holdState()} and unlock see the end by the clock too. The processes' clocks must agree, as with
 * Spring's JDBC registry. A blocking {@code lock()} or a timed try in another process waits for the holder's timer to
 * delete the node.
 * The holder learns it from {@link #holdState()}, from a re-entry or a renewal (refused with {@link
 * IllegalStateException}), and at its last unlock, which throws. The holding thread restarts the time with {@link
 * ZkSpringLockRegistry#renewLock(Object)} or {@link ZkSpringLockRegistry#renewLock(Object, Duration)} (another thread
 * is refused, as Spring's contract and its JDBC registry say), and a re-entry with a time to live restarts it with
 * that; with a {@linkplain ZkSpringLockRegistry#setRenewalTaskScheduler renewal scheduler} every hold with a time to
 * live is renewed every third of it, as Spring's Redis registry renews. A hold without a time to live lasts while the
 * client's session lives.
 *
 * <p>The node is deleted by a timer of the holder's own process (the registry's), not by ZooKeeper, which has no time
 * to live for an ephemeral node. So: a holder whose process dies frees the key for waiters when ZooKeeper expires its
 * session, after the session timeout, or at the first no-wait try after its time to live; a holder whose process is
 * paused (a long collection, a stopped VM) is taken over by such a try, and its node is otherwise deleted when the
 * process runs again (a pause longer than the session timeout ends the session and the hold with it); and after the
 * registry's {@link ZkSpringLockRegistry#close()} time to live is off: a hold keeps no timer, is renewed no more, and
 * lasts while the session lives, unless it had written an end on its node before, which another process's no-wait try
 * still judges. A blocking hold's expiry is told to the lock's state listeners as LOST, a timed try's too.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Safe for use by multiple threads; ownership is per thread.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <ul>
 *   <li>uncontended {@code lock()}, {@code tryLock()} or a timed {@code tryLock}, and {@code unlock}: 4 requests (a
 *       create and a listing pipelined in one round trip, the read that sets the watch vouching for the hold, not
 *       waited for, and a delete), with local hand-off or without; Spring's {@code ZookeeperLockRegistry}: 4, for it
 *       checks the connection before every try ({@code SpringRequestCountTest});
 *   <li>a re-entry and an inner unlock: none (Spring's re-entry: 1);
 *   <li>with local hand-off, {@code lock()}, {@code lockInterruptibly()} and {@code tryLock()} pass the lock among the
 *       threads of this process with no request; the cohort lists the key's path with a child watch (one read, so
 *       that it learns of a deletion before it passes the node on) only once a local thread waits for the node or it
 *       is kept idle, and reads the node itself with a watch only once another process waits behind it. A timed try
 *       takes a node of its own (see failure behaviour), as without local hand-off;
 *   <li>waiting: as {@link ZkReentrantLock};
 *   <li>a time to live: one {@code setData} on the hold's node before the lock call returns, one per renewal or
 *       restart, not waited for unless the owner renews, and with local hand-off one at the last unlock that takes
 *       it off (each fires the data watches on the node: the holder's, which sets itself again with one read, and the
 *       next waiter's, which looks at the queue again); one delete when it runs out. An uncontended {@code lock()}
 *       and {@code unlock} with a time to live: at most 6 requests, 8 with local hand-off
 *       ({@code SpringRequestCountTest.lockWithATtlAndUnlock_uncontended_costTheEndsWriteAndItsWatchMore});
 *   <li>a no-wait {@code tryLock()} that finds the key held: a listing and a read more, to judge the holder's time to
 *       live, and a delete and a try more if it is up.
 * </ul>
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>The timed tries, {@link #tryLock(long, TimeUnit)} and {@link #tryLock(Duration, Duration)}, come back within
 * their time and 50 ms whatever the network does, a silent connection included, where neither replies nor a disconnect
 * come; what a try that gave up sent is cleaned up in the background, its node deleted once the connection answers
 * again ({@code ZkSpringLockTest.tryLock_onASilentConnection_returnsFalseInTimeAndTheNodeGoesOnReconnect}; before, a
 * {@code tryLock(1, SECONDS)} on a 15 s session took 10.1 s there, one request timeout more). They take a node of their
 * own for it, with local hand-off too: zklock's engine bounds an acquire that a thread waits in by its timeout plus one
 * request timeout (two thirds of the session timeout), and has no cohort for one that no thread waits in. {@link
 * #lock()} waits through connection outages and interrupts (the interrupt flag is set again once it holds); {@link
 * #lockInterruptibly()} waits through outages; {@link #tryLock()} waits at most one request timeout for its reply. A
 * hold is granted only while the client is started and connected and the node is ours. The hold's state is {@link
 * #holdState()}: IN_DOUBT while the connection is suspended, LOST as above. The fencing token of the hold is {@link
 * #fencingToken()}.
 *
 * @since 0.1.0
 */
public final class ZkSpringLock implements DistributedLock {
    private final String key;
    private final ZkReentrantLock lock;
    private final ZkSpringLockRegistry registry;
    private final TtlTimer ttlTimer;
    private final TtlStamps ttlStamps;
    private final long keepIdleNanos;
    /** Each thread's hold: an entry from the thread's first acquire to its last unlock. */
    private final ConcurrentMap<Thread, ThreadHold> holds = new ConcurrentHashMap<>();
    /** Threads inside a first acquire of this lock: the registry must not forget a lock in use. */
    private final AtomicInteger acquiring = new AtomicInteger();

    private volatile long lastUsedNanos = System.nanoTime();
    private volatile Hooks hooks = Hooks.NONE;

    /** Test seams: a test may stop a thread at a named point. No-ops by default. */
    interface Hooks {
        Hooks NONE = new Hooks() {};

        /** A re-entry has checked that its hold stands and has not counted yet. */
        default void reentering() {}
    }

    ZkSpringLock(String key, ZkReentrantLock lock, ZkSpringLockRegistry registry) {
        this.key = key;
        this.lock = lock;
        this.registry = registry;
        this.ttlTimer = registry.timer();
        this.ttlStamps = registry.stamps();
        this.keepIdleNanos = TtlTimer.saturatedNanos(registry.keepIdle());
    }

    /**
     * Acquires the lock, waiting as long as it takes, through interrupts: an interrupt while waiting is remembered and
     * the interrupt flag set again once the lock is held (the JDK's {@code lock()} contract). A re-entry costs nothing.
     * A first acquire gets the registry's {@linkplain ZkSpringLockRegistry#setDefaultTtl(Duration) default time to
     * live}, if any.
     *
     * @throws IllegalStateException if the thread's hold is in doubt or lost (unlock it first), or the client is not
     *     started or is closed
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    @Override
    public void lock() {
        enterUninterruptibly(null);
    }

    /**
     * Acquires the lock as {@link #lock()} does, and ends the hold after {@code ttl} unless it is renewed (a re-entry
     * restarts the hold's time to live with {@code ttl}); see the class documentation.
     *
     * @param ttl how long the hold lasts unless renewed; positive
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is not positive
     * @throws IllegalStateException if the thread's hold is in doubt or lost, or the client is not started or is closed
     */
    @Override
    public void lock(Duration ttl) {
        enterUninterruptibly(requireTtl(ttl));
    }

    /**
     * Acquires the lock, waiting as long as it takes; an interrupt ends the wait, deleting our node. A first acquire
     * gets the registry's default time to live, if any.
     *
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws IllegalStateException if the thread's hold is in doubt or lost, or the client is not started or is closed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        enter(
                () -> {
                    lock.acquire();
                    return owned(true);
                },
                null);
    }

    /**
     * Acquires the lock if it is free now: a single try that never waits for the lock (one round trip, and a delete if
     * another holds), through the cohort with local hand-off, so it takes a node the cohort keeps idle with no request.
     * If another holds, the holder's node is read: a hold whose time to live is up by this clock is ended (its node
     * deleted) and the try made again, as Spring's JDBC registry takes an expired lock (a listing and a read more,
     * and a delete and a try if the time is up;
     * {@code ZkSpringLockTest.lockWithTtl_holderProcessesTimerStuck_anotherProcessTakesTheKeyWhenTheTtlIsUp}).
     * Unlike the timed forms it waits for its reply: within one request timeout (two thirds of the session timeout) on
     * a silent connection; {@code tryLock(0, unit)} comes back within 50 ms. An interrupt makes it return false with
     * the interrupt flag set. A first acquire gets the registry's default time to live, if any.
     *
     * @return {@code true} if the lock is now held
     * @throws IllegalStateException if the thread's hold is in doubt or lost, or the client is not started or is closed
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    @Override
    public boolean tryLock() {
        try {
            return enter(
                    () -> owned(lock.acquire(Duration.ZERO)
                            || (ttlStamps.takeOverExpired(lock, describe(), takeOverDeadline())
                                    && lock.acquire(Duration.ZERO))),
                    null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Acquires the lock if it becomes free within {@code time}, and comes back within {@code time} and 50 ms whatever
     * the network does: a silent connection included, where neither a reply nor a disconnect comes. A re-entry holds at
     * once. A first acquire takes a node of its own, also with local hand-off, and gives a hold the registry's
     * {@linkplain ZkSpringLockRegistry#setDefaultTtl(Duration) default time to live}, if any.
     *
     * <p>If the lock is held elsewhere, the wait ends when:
     *
     * <ul>
     *   <li>the lock is ours (true);
     *   <li>the time runs out (false): the acquire is withdrawn in the background, which deletes our node, at once or,
     *       if the connection is silent, once it answers again (the node is ephemeral: at worst it goes with the
     *       session);
     *   <li>the thread is interrupted ({@link InterruptedException}, the acquire withdrawn as above).
     * </ul>
     *
     * <p>Cost: as a blocking acquire (4 requests with its unlock, uncontended); none for a re-entry.
     *
     * @param time the longest time to wait; zero or less makes a single try, which has 50 ms for its round trip
     * @param unit the unit of {@code time}
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the thread's hold is in doubt or lost, or the client is not started or is closed
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return enterTimed(unit.toNanos(time), null);
    }

    /**
     * Acquires the lock as {@link #tryLock(long, TimeUnit)} does, within {@code waitTime} and 50 ms, and ends the hold
     * after {@code ttl} unless it is renewed (a re-entry restarts the hold's time to live with {@code ttl}); see the
     * class documentation.
     *
     * @param waitTime the longest time to wait; zero or negative makes a single try
     * @param ttl how long the hold lasts unless renewed; positive
     * @return {@code true} if the lock is now held, {@code false} if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code ttl} is not positive
     * @throws IllegalStateException if the thread's hold is in doubt or lost, or the client is not started or is closed
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime");
        Duration checkedTtl = requireTtl(ttl);
        return enterTimed(TtlTimer.saturatedNanos(waitTime), checkedTtl);
    }

    /**
     * Releases one hold of the current thread; the last one deletes our node (one request), or passes the lock to a
     * local waiter with local hand-off (none). If the hold was lost ({@link #holdState()} says {@link LockState#LOST}:
     * its time to live ran out, its session ended, or its node was found deleted), the last unlock clears the hold, so
     * that the thread may lock again, and then throws {@link ConcurrentModificationException}, as Spring's Redis and
     * JDBC locks do when their store lost the lock: the lock was not ours for a while, and what it protected may have
     * been changed by another holder. Inner unlocks only count.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws ConcurrentModificationException if this is the last unlock of a hold that was lost
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses the delete
     */
    @Override
    public void unlock() {
        Thread current = Thread.currentThread();
        ThreadHold mine = holds.get(current);
        if (mine == null) {
            throw notOwned(key, lock.path(), "");
        }
        if (!mine.exit()) {
            return;
        }
        holds.remove(current);
        lastUsedNanos = System.nanoTime();
        mine.release();
    }

    /**
     * Not supported: a condition would need a distributed wait set.
     *
     * @return never
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported by lock '" + key + "'");
    }

    /**
     * Returns the state of the current thread's hold: HELD, IN_DOUBT while the connection is suspended, LOST once the
     * session ended or the hold's time to live ran out. Another thread's hold of this lock has a state of its own. For
     * monitoring; no ZooKeeper call.
     *
     * @return the state, or empty if the current thread does not hold the lock
     */
    public Optional<LockState> holdState() {
        ThreadHold mine = holds.get(Thread.currentThread());
        return mine == null ? Optional.empty() : Optional.of(mine.state());
    }

    /**
     * Returns the fencing token of the current thread's hold, larger for every later hold of the path, local passes
     * included. No ZooKeeper call.
     *
     * @return the token
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     */
    public long fencingToken() {
        ThreadHold mine = holds.get(Thread.currentThread());
        if (mine == null) {
            throw notOwned(key, lock.path(), "");
        }
        return mine.token();
    }

    /**
     * Tells whether the current thread holds the lock (a lost hold counts until it is unlocked). No ZooKeeper call.
     *
     * @return {@code true} if the current thread holds the lock and has not unlocked it yet
     */
    public boolean isHeldByCurrentThread() {
        return holds.containsKey(Thread.currentThread());
    }

    /**
     * Returns the key this lock was obtained for.
     *
     * @return the key
     */
    public String key() {
        return key;
    }

    /**
     * Returns the lock path: the registry's root and the key, as Spring's {@code ZookeeperLockRegistry} makes it.
     *
     * @return the path, relative to the client's namespace
     */
    public String path() {
        return lock.path();
    }

    /** Restarts the current thread's time to live with {@code ttl}, or with the one it has if null. */
    void renew(Duration ttl) {
        ThreadHold mine = holds.get(Thread.currentThread());
        if (mine == null) {
            throw notOwned(key, lock.path(), ": nothing to renew");
        }
        mine.renew(ttl);
    }

    /**
     * Tells whether a thread holds or is acquiring this lock, or its cohort may keep an idle node (within the
     * registry's keep-idle time of the last use): the registry must not let go of it then.
     */
    boolean isInUse(long now) {
        return acquiring.get() > 0
                || !holds.isEmpty()
                || lock.isAcquiredInThisProcess()
                || (keepIdleNanos > 0 && now - lastUsedNanos < keepIdleNanos);
    }

    /** Returns when a thread last locked or unlocked this lock (the registry's table sees its obtains). */
    long lastUsedNanos() {
        return lastUsedNanos;
    }

    /** Tells whether a thread is inside a first acquire of this lock: for tests and monitoring. */
    boolean hasAcquiringThreads() {
        return acquiring.get() > 0;
    }

    void setHooks(Hooks hooks) {
        this.hooks = hooks;
    }

    private void enterUninterruptibly(Duration ttl) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    enter(
                            () -> {
                                lock.acquire();
                                return owned(true);
                            },
                            ttl);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // our node is deleted: take a new place and wait again
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link #enter(Attempt, Duration, long)}, waiting for the write of a time to live within one request timeout. */
    private boolean enter(Attempt attempt, Duration ttl) throws InterruptedException {
        return enter(attempt, ttl, Long.MAX_VALUE);
    }

    /**
     * A re-entry (no request) or a first acquire by {@code attempt}; a hold has its own time to live, if any, written
     * on its node before this returns (a timed try waits for that write no longer than its own bound).
     *
     * @param stampDeadlineNanos until when to wait for that write ({@link System#nanoTime()}), or
     *     {@link Long#MAX_VALUE} for one request timeout
     */
    private boolean enter(Attempt attempt, Duration ttl, long stampDeadlineNanos) throws InterruptedException {
        Thread current = Thread.currentThread();
        ThreadHold mine = holds.get(current);
        if (mine != null) {
            if (mine.reenter(ttl, hooks::reentering)) {
                lastUsedNanos = System.nanoTime();
                mine.awaitStamp(stampDeadlineNanos);
                return true;
            }
            mine.dropExpiredGrant(); // its time to live ran out: the lock is taken anew (ThreadHold note 7)
        }
        acquiring.incrementAndGet();
        long calledNanos = System.nanoTime();
        try {
            ThreadHold.Grant grant = attempt.run();
            if (grant == null) {
                return false;
            }
            // recorded before acquiring falls: the registry never sees the lock unused meanwhile
            long ttlStart = ThreadHold.ttlStart(calledNanos, System.nanoTime());
            ThreadHold held = mine != null
                    ? mine.takenAnew(grant, ttl, ttlStart)
                    : new ThreadHold(
                            describe(),
                            grant,
                            ttlTimer,
                            ttlStamps,
                            registry::renewalScheduler,
                            ttl != null ? ttl : registry.defaultTtlOrNull(),
                            ttlStart);
            holds.put(current, held);
            held.awaitStamp(stampDeadlineNanos);
            return true;
        } finally {
            acquiring.decrementAndGet();
            lastUsedNanos = System.nanoTime();
        }
    }

    /** A timed try: a re-entry, or an acquire that comes back within its time whatever the network does. */
    private boolean enterTimed(long waitNanos, Duration ttl) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before trying " + describe());
        }
        long bound = Math.max(0, Math.min(waitNanos, Long.MAX_VALUE / 4));
        long stampDeadline = System.nanoTime() + bound + TimeUnit.MILLISECONDS.toNanos(TimedTry.GRACE_MILLIS);
        return enter(() -> TimedTry.attempt(lock, waitNanos), ttl, stampDeadline);
    }

    /** Until when a no-wait try may judge the holder's time to live: one request timeout from now. */
    private long takeOverDeadline() {
        return System.nanoTime() + ttlTimer.requestTimeoutNanos();
    }

    /** The current thread's hold of the lock, if {@code acquired}. */
    private ThreadHold.Grant owned(boolean acquired) {
        return acquired ? new OwnedGrant(lock, registry.isLocalHandOff()) : null;
    }

    /** The refusal of a call that needs the current thread's hold, worded as Spring's registries word it. */
    static IllegalMonitorStateException notOwned(String key, String path, String why) {
        return new IllegalMonitorStateException("You do not own lock at " + path + ": lock '" + key
                + "' is not held by " + Thread.currentThread().getName() + why);
    }

    private String describe() {
        return "lock '" + key + "' at " + lock.path();
    }

    private Duration requireTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl of lock '" + key + "' must be positive, not " + ttl);
        }
        return ttl;
    }

    @Override
    public String toString() {
        return "ZkSpringLock[" + key + " at " + lock.path() + "]";
    }

    /** A first acquire: the hold it got, or null if its time ran out. */
    @FunctionalInterface
    private interface Attempt {
        ThreadHold.Grant run() throws InterruptedException;
    }
}
