package dev.zklock.spring;

import dev.zklock.recipes.locks.ZkReentrantLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * Spring Integration's lock registry over zklock: a drop-in for Spring's {@code ZookeeperLockRegistry} with the
 * renewable time to live of the Redis and JDBC registries.
 *
 * <h2>Semantics</h2>
 *
 * <p>The lock of key {@code k} is a {@link ZkSpringLock} on {@code root + "/" + k}, the path Spring's
 * {@code ZookeeperLockRegistry} uses by default, on the same default root {@value #DEFAULT_ROOT}, with Curator's
 * {@code InterProcessMutex} node layout: this registry and Spring's on one root exclude each other on every key, so a
 * fleet can move one service at a time ({@code SpringInteropTest}). Keys must be strings that make a valid ZooKeeper
 * path, as with Spring's. Locks are reentrant per thread. With local hand-off (on by default; {@link
 * Builder#localHandOff(boolean)}), the threads of this process that {@code lock()} one key queue behind one node and
 * pass the lock among themselves with no ZooKeeper request, within a bound once another process waits (64 passes or
 * 5 ms; see zklock's {@code ZkLockBuilder}); a timed {@code tryLock} takes a node of its own all the same (see {@link
 * ZkSpringLock}); off, every thread takes its own place in ZooKeeper's queue.
 *
 * <p>Time to live, as {@link ZkSpringLock} says in full: a hold gets one from {@link DistributedLock#lock(Duration)},
 * {@link DistributedLock#tryLock(Duration, Duration)} or the registry's {@linkplain #setDefaultTtl(Duration) default};
 * it belongs to that thread's hold; the holding thread renews it ({@link #renewLock(Object, Duration)}), or the
 * {@linkplain #setRenewalTaskScheduler(TaskScheduler) renewal scheduler} does, every third of it. It is a timer of
 * this process, not of ZooKeeper.
 *
 * <p>{@link #obtain(Object)} returns the same lock for a key for as long as anything can use it. The registry keeps a
 * lock while a thread holds or acquires it, while its cohort may keep an idle node ({@link Builder#keepIdle}), and for
 * the {@linkplain #setIdleTime(Duration) idle time} (one minute by default) after its last use, then lets go of it on
 * the timer thread of the client's zklock context (zklock's {@code KeyedLocks}); beyond the {@linkplain
 * #setCacheCapacity(int) cache capacity} (30,000 by default, as Spring's) it lets go of the least recently used unused
 * locks at once. So a service that locks unboundedly many keys stays bounded; {@link #expireUnusedOlderThan(long)} lets go
 * at once. A lock let go of stays its key's while something refers to it (a caller between {@code obtain} and
 * {@code lock}, say): the key is forgotten only once the lock is unreachable, so that a thread never holds one lock of
 * a key and queues behind its own node through another ({@code ZkSpringLockRegistryTest.obtain_nestedUnderSweeps_alwaysReturnsTheLockHeld}).
 *
 * <h2>Leader election with Spring's {@code LockRegistryLeaderInitiator}</h2>
 *
 * <p>A re-entry into a hold in doubt throws, so the initiator's leader steps down at its first heartbeat after its
 * connection is suspended (two thirds of the session timeout); no other process can lead before the server expires
 * the session. So the heartbeat, the unlock and the candidate's {@code onRevoked} must fit in the last third of the
 * session timeout: with a 2 s session and a 100 ms heartbeat the step-down came about 1,470 ms after the network went
 * silent and the next leader about 500 ms after the old {@code onRevoked} returned, and an {@code onRevoked} that runs
 * longer still runs when the next term begins ({@code LeaderElectionTest}). On {@code stop()} the initiator unlocks
 * before it calls {@code onRevoked}: the next leader was granted 2 to 6 ms after the stop, 1 to 2 ms after the old
 * {@code onRevoked} returned, and nothing makes it wait for that return.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Safe for use by multiple threads; ownership of each lock is per thread. The setters take effect for what comes
 * after them: the next first acquire (default time to live), the next restart of a time to live (renewal scheduler),
 * the next sweep (idle time).
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>{@code obtain}, {@code expireUnusedOlderThan}, {@code renewLock}, the renewals, the sweeps and the setters: none.
 * Each lock: see {@link ZkSpringLock} (an uncontended {@code lock()} or {@code tryLock} and {@code unlock}: 4 requests
 * with or without local hand-off, as Spring's; a re-entry: none, Spring's 1; {@code SpringRequestCountTest}).
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>As zklock's {@link ZkReentrantLock}: a hold is granted only while the client is started and connected and the
 * node is ours; a re-entry into a hold in doubt or lost is refused, and the last unlock of a lost hold throws {@link
 * java.util.ConcurrentModificationException}. A timed try comes back within its time and 50 ms whatever the network
 * does, a silent connection included (see {@link ZkSpringLock}). {@link #close()} stops the registry's timer: holds
 * keep no time to live from then on and are renewed no more (they last while the session lives), and idle locks are let
 * go of only by {@code expireUnusedOlderThan}; it does not close the client, and the locks go on working.
 *
 * @since 0.1.0
 */
public final class ZkSpringLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock>, AutoCloseable {
    /** The root Spring's {@code ZookeeperLockRegistry} uses by default. */
    public static final String DEFAULT_ROOT = "/SpringIntegration-LockRegistry";

    private static final Duration DEFAULT_IDLE_TIME = Duration.ofMinutes(1);

    /** Spring's {@code ZookeeperLockRegistry}'s default cache capacity. */
    public static final int DEFAULT_CACHE_CAPACITY = 30_000;

    private final LockFactory factory;
    private final TtlTimer ttlTimer;
    private final TtlStamps ttlStamps;
    private final LockCache locks;
    private volatile Duration defaultTtl; // null: none
    private volatile TaskScheduler renewalScheduler; // null: none

    /**
     * Creates a registry on {@link #DEFAULT_ROOT} with local hand-off. No ZooKeeper call; the client need not be
     * started yet.
     *
     * @param client the client of every lock
     * @throws NullPointerException if {@code client} is null
     */
    public ZkSpringLockRegistry(CuratorFramework client) {
        this(builder(client));
    }

    private ZkSpringLockRegistry(Builder builder) {
        this.factory = new LockFactory(
                builder.client,
                builder.root,
                builder.localHandOff,
                builder.keepIdle,
                builder.queueView,
                builder.keyToPath);
        this.ttlTimer = new TtlTimer(builder.client);
        this.ttlStamps = new TtlStamps(builder.client);
        this.locks = new LockCache(builder.client, DEFAULT_IDLE_TIME, DEFAULT_CACHE_CAPACITY);
    }

    /**
     * Returns a builder of a registry, for a root other than {@link #DEFAULT_ROOT}, local hand-off off, or an idle node
     * kept. No ZooKeeper call.
     *
     * @param client the client of every lock
     * @return a builder that builds a registry like {@code new ZkSpringLockRegistry(client)} unless told otherwise
     * @throws NullPointerException if {@code client} is null
     */
    public static Builder builder(CuratorFramework client) {
        return new Builder(client);
    }

    /**
     * Returns the lock of {@code lockKey}: the same instance for as long as anything can use it (see the class
     * documentation for when a key is forgotten). No ZooKeeper call.
     *
     * @param lockKey a string that makes a valid ZooKeeper path under the root
     * @return the lock of the key
     * @throws NullPointerException if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string or does not make a valid path
     */
    @Override
    public ZkSpringLock obtain(Object lockKey) {
        String key = LockFactory.requireKey(lockKey);
        return locks.obtain(factory.pathOf(key), path -> new ZkSpringLock(key, factory.newLock(path), this));
    }

    /**
     * Returns the lock path of {@code lockKey}, as Spring's {@code ZookeeperLockRegistry} makes it: the root, a slash,
     * and the key as it is; or what the registry's {@link Builder#keyToPath(ZkLockKeyToPath) key-to-path function}
     * makes of the key.
     *
     * @param lockKey the key, as for {@link #obtain(Object)}
     * @return the path, relative to the client's namespace
     * @throws NullPointerException if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string or does not make a valid path
     */
    public String pathOf(Object lockKey) {
        return factory.pathOf(lockKey);
    }

    /**
     * Lets go, now, of the locks that no thread holds or is acquiring, whose cohort keeps no idle node, and that nobody
     * obtained, locked or unlocked for {@code age} milliseconds; the registry's timer does the same every half idle
     * time ({@link #setIdleTime(Duration)}). A lock let go of stays its key's while anything refers to it, so that
     * {@code obtain} never hands out a second lock of a key while the first can be used; the key is forgotten once the
     * lock is unreachable. No ZooKeeper call.
     *
     * @param age milliseconds; zero or negative lets go of every unused lock, as Spring's registries do
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        locks.forgetUnused(age);
    }

    /**
     * Sets how long a lock nobody uses is kept before the registry lets go of it: on its timer, every half idle time
     * (at least every 100 ms), whether or not anybody calls {@code obtain}. A lock that a thread holds or is acquiring,
     * or whose cohort keeps an idle node, is never let go of. No ZooKeeper call.
     *
     * @param idleTime the time; zero lets go of an unused lock at the next sweep; one minute by default
     * @throws NullPointerException if {@code idleTime} is null
     * @throws IllegalArgumentException if {@code idleTime} is negative
     */
    public void setIdleTime(Duration idleTime) {
        locks.idleTime(idleTime);
    }

    /**
     * Returns how long a lock nobody uses is kept; see {@link #setIdleTime(Duration)}.
     *
     * @return the idle time
     */
    public Duration idleTime() {
        return locks.idleTime();
    }

    /**
     * Sets how many locks the registry keeps at most, as Spring's registries' {@code setCacheCapacity} does: beyond it,
     * an {@code obtain} lets go of the least recently used locks that are not in use; a lock in use is kept beyond it
     * (zklock's {@code KeyedLocks}). The idle time bounds the registry too. No ZooKeeper call.
     *
     * @param cacheCapacity at least 1; {@value #DEFAULT_CACHE_CAPACITY} by default, as Spring's ZooKeeper registry
     * @throws IllegalArgumentException if {@code cacheCapacity} is less than 1
     */
    public void setCacheCapacity(int cacheCapacity) {
        locks.capacity(cacheCapacity);
    }

    /**
     * Returns how many locks the registry keeps at most; see {@link #setCacheCapacity(int)}.
     *
     * @return the capacity
     */
    public int cacheCapacity() {
        return locks.capacity();
    }

    /**
     * Restarts the time to live of the current thread's hold of {@code lockKey} with the time to live it was taken
     * with; a hold taken without one lasts while the session lives and has nothing to renew. No ZooKeeper call.
     *
     * @param lockKey the key
     * @throws NullPointerException if {@code lockKey} is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string or does not make a valid path
     * @throws IllegalMonitorStateException if the current thread does not hold the lock (Spring's contract: the lock
     *     must be held by the current thread; the JDBC registry throws the same)
     * @throws IllegalStateException if the current thread's hold expired, is in doubt or is lost
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /**
     * Gives the current thread's hold of {@code lockKey} the time to live {@code ttl} from now, whether or not it had
     * one. No ZooKeeper call.
     *
     * @param lockKey the key
     * @param ttl the new time to live; positive
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code lockKey} is not a string or does not make a valid path, or {@code ttl}
     *     is not positive
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the current thread's hold expired, is in doubt or is lost
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl of lock '" + lockKey + "' must be positive, not " + ttl);
        }
        heldLock(lockKey).renew(ttl);
    }

    private ZkSpringLock heldLock(Object lockKey) {
        String path = pathOf(lockKey);
        ZkSpringLock lock = locks.find(path);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw ZkSpringLock.notOwned(String.valueOf(lockKey), path, ": nothing to renew");
        }
        return lock;
    }

    /**
     * Renews every hold with a time to live, taken or renewed from now on, every third of its time to live on
     * {@code renewalTaskScheduler}, as Spring's Redis registry renews its locks: such a hold then ends only with its
     * unlock, its session, or the scheduler (shut down, or too late to run). The renewal of a hold stops when the hold
     * expires or ends. Holds taken before this call are renewed from their next restart on. No ZooKeeper call: a
     * renewal restarts a timer of this process (see {@link ZkSpringLock}'s time to live).
     *
     * @param renewalTaskScheduler runs the renewals; its tasks take microseconds and never block
     * @throws NullPointerException if {@code renewalTaskScheduler} is null
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        this.renewalScheduler = Objects.requireNonNull(renewalTaskScheduler, "renewalTaskScheduler");
    }

    /**
     * Gives every hold taken without a time to live of its own ({@code lock()}, {@code lockInterruptibly()},
     * {@code tryLock()}, {@code tryLock(long, TimeUnit)}) the time to live {@code ttl}, as Spring's Redis and JDBC
     * registries give theirs; zero gives them none (the default: such a hold lasts while the session lives). Applies to
     * first acquires from now on; a re-entry without a time to live leaves the hold's as it is. No ZooKeeper call.
     *
     * @param ttl the default time to live; zero for none
     * @throws NullPointerException if {@code ttl} is null
     * @throws IllegalArgumentException if {@code ttl} is negative
     */
    public void setDefaultTtl(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("default ttl must not be negative, not " + ttl);
        }
        this.defaultTtl = ttl.isZero() ? null : ttl;
    }

    /**
     * Returns the time to live of holds taken without one of their own; see {@link #setDefaultTtl(Duration)}.
     *
     * @return the default time to live, or empty if there is none
     */
    public Optional<Duration> defaultTtl() {
        return Optional.ofNullable(defaultTtl);
    }

    /** The default time to live, or null for none. */
    Duration defaultTtlOrNull() {
        return defaultTtl;
    }

    /** The renewal scheduler, or null if none was set. */
    TaskScheduler renewalScheduler() {
        return renewalScheduler;
    }

    /**
     * Returns the root of every lock path.
     *
     * @return the root, relative to the client's namespace
     */
    public String root() {
        return factory.root();
    }

    /**
     * Tells whether the threads of this process pass each lock among themselves behind one node.
     *
     * @return {@code true} with local hand-off
     */
    public boolean isLocalHandOff() {
        return factory.isLocalHandOff();
    }

    /**
     * Returns how long a lock keeps its node after its last local unlock, so that the next lock in this process costs
     * no request.
     *
     * @return the time; zero when the node goes at once
     */
    public Duration keepIdle() {
        return factory.keepIdle();
    }

    /**
     * Tells whether every lock reads its queue from the client's queue view ({@link Builder#queueView}).
     *
     * @return {@code true} with a queue view
     */
    public boolean isQueueView() {
        return factory.isQueueView();
    }

    /**
     * Returns how many locks the registry keeps now (in use, or used within the idle time): for monitoring. Locks it
     * has let go of are not counted, even while something still refers to them.
     *
     * @return the number of locks kept
     */
    public int size() {
        return locks.size();
    }

    /** Returns how many keys the registry knows now: those it keeps, and those let go of and not yet collected. */
    int keys() {
        return locks.keys();
    }

    TtlTimer timer() {
        return ttlTimer;
    }

    TtlStamps stamps() {
        return ttlStamps;
    }

    /**
     * Stops the registry's timer: the holds' times to live are off (those holds then last while the session lives, and
     * are renewed no more), and idle locks are let go of only by {@link #expireUnusedOlderThan(long)}. Does not close
     * the client, and the locks go on working. No ZooKeeper call.
     */
    @Override
    public void close() {
        ttlTimer.close();
        locks.close();
    }

    @Override
    public String toString() {
        return "ZkSpringLockRegistry[" + factory.root() + ", " + locks.size() + " locks"
                + (factory.isLocalHandOff() ? ", local hand-off]" : "]");
    }

    /**
     * Builds a {@link ZkSpringLockRegistry}. Not thread-safe: confine a builder to one thread. {@code build()} makes no
     * ZooKeeper call.
     *
     * @since 0.1.0
     */
    public static final class Builder {
        private final CuratorFramework client;
        private String root = DEFAULT_ROOT;
        private boolean localHandOff = true;
        private Duration keepIdle = Duration.ZERO;
        private boolean queueView;
        private ZkLockKeyToPath keyToPath;

        private Builder(CuratorFramework client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * Sets the root of every lock path; Spring's {@code ZookeeperLockRegistry(client, root)} takes the same.
         *
         * @param root an absolute ZooKeeper path; {@value ZkSpringLockRegistry#DEFAULT_ROOT} by default
         * @return this builder
         * @throws NullPointerException if {@code root} is null
         * @throws IllegalArgumentException if {@code root} is not a valid ZooKeeper path
         */
        public Builder root(String root) {
            this.root = LockFactory.validRoot(root);
            return this;
        }

        /**
         * Turns local hand-off on (the default) or off; see the class documentation.
         *
         * @param localHandOff {@code false} to have every thread take its own place in ZooKeeper's queue
         * @return this builder
         */
        public Builder localHandOff(boolean localHandOff) {
            this.localHandOff = localHandOff;
            return this;
        }

        /**
         * Keeps each lock's node for {@code keepIdle} after its last local unlock while no other process waits, so the
         * next lock of the key in this process costs no request; needs local hand-off.
         *
         * @param keepIdle the time; zero (the default) deletes the node at the last unlock
         * @return this builder
         * @throws NullPointerException if {@code keepIdle} is null
         * @throws IllegalArgumentException if {@code keepIdle} is negative
         */
        public Builder keepIdle(Duration keepIdle) {
            Objects.requireNonNull(keepIdle, "keepIdle");
            if (keepIdle.isNegative()) {
                throw new IllegalArgumentException("keepIdle must not be negative, not " + keepIdle);
            }
            this.keepIdle = keepIdle;
            return this;
        }

        /**
         * Has every lock read its queue from the client's queue view: one persistent recursive watch per client on the
         * root for every key (a path a {@link #keyToPath} function makes outside the root watches itself), so that an
         * uncontended lock and unlock, and a contended lock, cost a create and a delete (ZooKeeper 3.6 or later). Every
         * client then hears of every change under the root; see zklock's {@code ZkLockBuilder.queueView()} for the cost
         * and {@code SpringRequestCountTest}. Off by default.
         *
         * @param queueView {@code true} to read the queues from the view
         * @return this builder
         */
        public Builder queueView(boolean queueView) {
            this.queueView = queueView;
            return this;
        }

        /**
         * Makes the lock path of each key with {@code keyToPath} instead of the root, a slash and the key, as Spring's
         * {@code ZookeeperLockRegistry(client, keyToPathStrategy)}; the root is then not used.
         *
         * @param keyToPath makes the path of a key; called on every {@code obtain}, so it must be pure and fast
         * @return this builder
         * @throws NullPointerException if {@code keyToPath} is null
         */
        public Builder keyToPath(ZkLockKeyToPath keyToPath) {
            this.keyToPath = Objects.requireNonNull(keyToPath, "keyToPath");
            return this;
        }

        /**
         * Builds the registry. No ZooKeeper call.
         *
         * @return a new registry
         * @throws IllegalStateException if an idle node is to be kept without local hand-off
         */
        public ZkSpringLockRegistry build() {
            if (!localHandOff && !keepIdle.isZero()) {
                throw new IllegalStateException(
                        "keepIdle of " + keepIdle + " needs local hand-off, which is turned off");
            }
            return new ZkSpringLockRegistry(this);
        }
    }
}
