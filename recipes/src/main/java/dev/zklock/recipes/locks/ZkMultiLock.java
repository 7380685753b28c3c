package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.holds.HoldCounts;
import dev.zklock.recipes.locks.holds.MemberLocks;
import dev.zklock.recipes.locks.holds.MultiLockMembers;
import dev.zklock.recipes.locks.holds.MultiQueue;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Several locks taken as one, all or nothing: the zklock counterpart of Curator's {@code InterProcessMultiLock},
 * without its deadlocks.
 *
 * <h2>Semantics</h2>
 *
 * <p>Over lock <b>paths</b> ({@link #ZkMultiLock(CuratorFramework, List)}): holding means holding the exclusive lock of
 * every path, laid out as Curator's {@code InterProcessMutex} lays it out, so it excludes a {@link ZkReentrantLock}, a
 * {@link ZkExclusiveLock} or an {@code InterProcessMutex} on any of the paths. Our nodes enter every queue in one
 * ZooKeeper transaction, at one point of ZooKeeper's total order, so two multi-locks over overlapping paths are in the
 * same order in every queue they share and can never deadlock, whatever order their paths were given in. Duplicate
 * paths are collapsed. Over arbitrary <b>locks</b> ({@link #ZkMultiLock(List)}, Curator's too): members are taken in
 * path order when all are zklock locks, in the given order otherwise, and released in reverse; a member that fails or
 * times out stops the acquire at once and the members taken are released. In both forms the lock is reentrant per
 * thread, and one deadline covers the whole acquire (Curator gives each member the full timeout). The freedom from
 * deadlock holds among multi-locks over paths, and among multi-locks over zklock locks (one canonical order); locks
 * taken one after another (nested single locks, or the form over locks) can still wait in a cycle with a multi-lock
 * over paths, as any two lock orders can.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; ownership is per thread.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>Over paths: an uncontended acquire is one round trip and two requests for any number of paths (one transaction
 * creating every node, and one read-only transaction listing every path, pipelined behind it), and then one data read
 * per path, not waited for, that sets the watch vouching for its node while it is held; release is one
 * transaction (1 request);
 * re-entry costs nothing; waiting costs, per blocked path, what a {@link ZkReentrantLock} waiter pays. Over locks: the
 * sum of the members' costs.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>A timed-out, interrupted or failed acquire leaves no node in any queue (and, over locks, releases the members
 * taken). Over paths, losing the session while waiting re-enters every queue; holds live as long as the session that
 * created the nodes. Release deletes all nodes in one transaction; if the connection is down, Curator's guaranteed
 * delete takes over. A release that fails on several members throws one exception, the others suppressed.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkMultiLock accounts = new ZkMultiLock(client, List.of("/locks/account/17", "/locks/account/4"));
 * if (accounts.acquire(2, TimeUnit.SECONDS)) {
 *     try {
 *         ledger.transfer(17, 4, amount, accounts.fencingTokens());
 *     } finally {
 *         accounts.release();
 *     }
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkMultiLock extends TimedLock {
    private final MultiLockMembers members;
    private final HoldCounts<MultiLockMembers.Taken> holds;
    private final List<LockStateListener> listeners = new CopyOnWriteArrayList<>();
    private final String name;

    /**
     * Creates a multi-lock over the exclusive locks of {@code paths}. No ZooKeeper call; the client need not be started.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param paths the lock paths, absolute, relative to the client's namespace; duplicates are collapsed
     * @throws NullPointerException if an argument or a path is null
     * @throws IllegalArgumentException if {@code paths} is empty or a path is not a valid ZooKeeper path
     */
    public ZkMultiLock(CuratorFramework client, List<String> paths) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(paths, "paths");
        Checks.requireArgument(!paths.isEmpty(), "a multi-lock needs at least one path, got none");
        TreeSet<String> distinct = new TreeSet<>();
        for (String path : paths) {
            distinct.add(Checks.lockPath(path));
        }
        this.name = distinct.toString();
        this.members = new MultiQueue(client, List.copyOf(distinct), name, listeners);
        this.holds = new HoldCounts<>(name);
    }

    /**
     * Creates a multi-lock over arbitrary locks: zklock locks, Curator's, or others. No ZooKeeper call.
     *
     * @param locks the locks to take as one
     * @throws NullPointerException if {@code locks} is null, or holds a null element (named by its index, as
     *     {@code locks[1]}: {@code ZkMultiLockTest})
     * @throws IllegalArgumentException if {@code locks} is empty
     */
    public ZkMultiLock(List<? extends InterProcessLock> locks) {
        Objects.requireNonNull(locks, "locks");
        MemberLocks memberLocks = new MemberLocks(locks, ZkMultiLock::zkMember);
        this.members = memberLocks;
        this.name = memberLocks.members().toString();
        this.holds = new HoldCounts<>(name);
    }

    /**
     * Releases one hold of the current thread; at zero, releases every lock: over paths, one transaction deleting every
     * node; over locks, each member in reverse order, going on past failures.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold this multi-lock
     * @throws ZkLockException if ZooKeeper refuses a delete, or a member fails with a checked exception (the first
     *     failure; the others are suppressed)
     */
    @Override
    public void release() {
        MultiLockMembers.Taken taken = holds.release();
        if (taken != null) {
            taken.release();
        }
    }

    /**
     * Tells whether any thread of this process holds this multi-lock: from a first acquire until the matching release,
     * a {@linkplain LockState#LOST lost} hold included, as Curator's locks answer (see
     * {@link ZkReentrantLock#isHeldByCurrentThread()} for why). For monitoring; no ZooKeeper call.
     *
     * @return {@code true} if some thread holds it and has not released it yet
     */
    @Override
    public boolean isAcquiredInThisProcess() {
        return !holds.isEmpty();
    }

    /**
     * Tells whether the current thread holds this multi-lock: from its first acquire until the matching release, a lost
     * hold included; {@link #holdState()} tells whether every node still stands. No ZooKeeper call.
     *
     * @return {@code true} if the current thread holds this multi-lock and has not released it yet
     */
    public boolean isHeldByCurrentThread() {
        return holds.heldByCurrentThread() != null;
    }

    /**
     * Returns the state of the current thread's hold, over paths: the worst state of its nodes (LOST before IN_DOUBT
     * before HELD). Over locks, members keep their own states: HELD while held. No ZooKeeper call.
     *
     * @return the state, or empty if the current thread does not hold this multi-lock
     */
    public Optional<LockState> holdState() {
        return Optional.ofNullable(holds.heldByCurrentThread()).map(MultiLockMembers.Taken::state);
    }

    /**
     * Adds a listener that hears every state change of the nodes of every hold of this multi-lock (over paths). No
     * ZooKeeper call.
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
     * Returns the number of holds of the current thread. No ZooKeeper call.
     *
     * @return the hold count, zero if the current thread does not hold this multi-lock
     */
    public int getHoldCount() {
        return holds.holdCount();
    }

    /**
     * Returns the fencing token of the current thread's hold on each path, made of the creation zxid of our node there
     * ({@link FencingToken}; over paths, one transaction made them all, so they are equal), larger for every later
     * acquisition of that path. Over
     * locks, the tokens of the zklock members. No ZooKeeper call.
     *
     * @return tokens by lock path, in path order
     * @throws IllegalMonitorStateException if the current thread does not hold this multi-lock
     */
    public Map<String, Long> fencingTokens() {
        MultiLockMembers.Taken taken = holds.heldByCurrentThread();
        if (taken == null) {
            throw HoldCounts.notHeld(name);
        }
        return taken.tokens();
    }

    /**
     * Returns the lock paths this multi-lock takes, in the order it takes them: sorted and distinct over paths; over
     * locks, the paths of the zklock members.
     *
     * @return the paths, relative to the client's namespace
     */
    public List<String> paths() {
        return members.paths();
    }

    @Override
    LockHold newHold() {
        MultiLockMembers.Taken taken = holds.heldByCurrentThread();
        return new LockHold(name, taken.tokens(), taken::state, this::release, null, null);
    }

    @Override
    String lockName() {
        return name;
    }

    @Override
    boolean acquire(Deadline deadline) throws InterruptedException {
        MultiLockMembers.Taken current = holds.heldByCurrentThread();
        Checks.requireState(
                current == null || current.state() != LockState.LOST,
                "the hold of multi-lock %s was lost (its session ended or a node went); release it before acquiring"
                        + " again",
                name);
        if (holds.reenter()) {
            return true;
        }
        Optional<MultiLockMembers.Taken> taken = members.acquire(deadline);
        taken.ifPresent(holds::hold);
        return taken.isPresent();
    }

    @Override
    public String toString() {
        return "ZkMultiLock" + name;
    }

    /** A member that is a zklock single-path lock, with its path and the current thread's fencing token; else empty. */
    private static Optional<MemberLocks.ZkMember> zkMember(InterProcessLock lock) {
        return lock instanceof AbstractZkLock zk
                ? Optional.of(new MemberLocks.ZkMember(zk.path(), zk::fencingToken))
                : Optional.empty();
    }
}
