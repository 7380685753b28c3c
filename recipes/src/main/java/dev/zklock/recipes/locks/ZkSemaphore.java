package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Failures;
import dev.zklock.recipes.locks.engine.LeaseQueue;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.QueueHooks;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.shared.SharedCountListener;
import org.apache.curator.framework.recipes.shared.SharedCountReader;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.ZKPaths;

/**
 * A distributed counting semaphore on a ZooKeeper path: at most {@code maxLeases} leases are out at once, across every
 * process; the zklock counterpart of Curator's {@code InterProcessSemaphoreV2}, on its node layout and protocol.
 *
 * <h2>Semantics</h2>
 *
 * <p>A lease is a protected {@code EPHEMERAL_SEQUENTIAL} node {@code _c_<uuid>-lease-<sequence>} under
 * {@code <path>/leases}, made only by the holder of the internal mutex at {@code <path>/locks} (an
 * {@code InterProcessMutex} layout), which waits, still holding the mutex, until few enough leases are out. So a
 * {@code ZkSemaphore} and a Curator {@code InterProcessSemaphoreV2} (or {@code InterProcessSemaphoreMutex}, a semaphore
 * of one lease) on the same path share one lease count. Acquires are served in the order they take the mutex (FIFO);
 * {@code acquire(qty)} takes its leases at once, in one transaction, or none. Leases belong to no thread: any thread may
 * return them. The lease count is fixed, or read from a {@link SharedCountReader} (a change wakes a waiting acquire of
 * this object; processes should agree on the count, as Curator's semaphores must).
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; each acquire takes leases of its own.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>An uncontended acquire and return costs 7 requests, as Curator's ({@code SemaphoreRequestCountTest}): the mutex's
 * create with its listing pipelined (one round trip), the leases' create with their listing pipelined (one round trip;
 * {@code RequestCountTest}), the read, not waited for, that sets the watch on the lease which vouches for it while it
 * is held (a stranger's delete of it makes it LOST), the mutex's delete (not waited for; one transaction with a check that each lease granted
 * still stands, so that a lease another client deleted after its listing is LOST before the next acquire can take its
 * place: {@code StrangerDeleteLeaseTest}) and, to return, the lease's delete. Waiting for the
 * mutex costs one watch on the node ahead and, when that node goes, no further request if it was the only one ahead;
 * waiting for a lease costs one child watch on the leases, held only by the mutex's holder (no herd), and one listing
 * per change. With 8 clients looping on 3 leases, an acquisition and its return cost as many requests as Curator's,
 * and one watch event more, the voucher's, fired by the lease's own delete ({@code SemaphoreRequestCountTest}). Giving up
 * deletes what was made.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>A lease lives as long as the session that made it: {@link ZkLease#state()} is IN_DOUBT while the connection is
 * suspended and LOST once the session ended (then another client may take the lease). A timed-out, interrupted,
 * cancelled or failed acquire deletes every node it made, mutex and leases, including one whose create lost its reply;
 * if the mutex's session ends on the way, the acquire deletes what is left and starts again, within its deadline.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkSemaphore downloads = new ZkSemaphore(client, "/semaphores/downloads", 3);
 * Lease lease = downloads.acquire(5, TimeUnit.SECONDS);   // null if no lease in time
 * if (lease != null) {
 *     try (lease) {
 *         download();
 *     }
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkSemaphore {
    private final LeaseQueue queue;
    private final int fixedLeases; // 0 with a shared count
    private final List<LockStateListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * Creates a semaphore of {@code maxLeases} leases on {@code path}. No ZooKeeper call.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the semaphore's path, absolute, relative to the client's namespace
     * @param maxLeases the most leases out at once, at least 1
     * @throws NullPointerException if {@code client} or {@code path} is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path, or {@code maxLeases} is below 1
     */
    public ZkSemaphore(CuratorFramework client, String path, int maxLeases) {
        Objects.requireNonNull(client, "client");
        Checks.lockPath(path);
        Checks.requireArgument(
                maxLeases >= 1, "maxLeases of semaphore '%s' must be at least 1, not %d", path, maxLeases);
        this.fixedLeases = maxLeases;
        this.queue = new LeaseQueue(client, path, () -> maxLeases, listeners);
    }

    /**
     * Creates a semaphore on {@code path} whose lease count is {@code count}'s value, read at each decision; a change
     * makes a waiting acquire of this object decide again. No ZooKeeper call.
     *
     * @param client the client to use
     * @param path the semaphore's path
     * @param count the shared count to read the lease count from (a count below 1 lets no acquire through)
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkSemaphore(CuratorFramework client, String path, SharedCountReader count) {
        Objects.requireNonNull(client, "client");
        Checks.lockPath(path);
        Objects.requireNonNull(count, "count");
        this.fixedLeases = 0;
        IntSupplier leases = count::getCount;
        this.queue = new LeaseQueue(client, path, leases, listeners);
        count.addListener(new SharedCountListener() {
            @Override
            public void countHasChanged(SharedCountReader changed, int newCount) {
                queue.countChanged();
            }

            @Override
            public void stateChanged(CuratorFramework changed, ConnectionState newState) {
                // the leases' own states are tracked per client
            }
        });
    }

    /**
     * Acquires one lease, waiting as long as it takes: until a lease is ours, the thread is interrupted (what was made
     * is deleted), or ZooKeeper refuses a request. Cost: see the class documentation.
     *
     * @return the lease; return it with {@link ZkLease#close()} or {@link #returnLease(Lease)}
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws IllegalStateException if the client is not started or is closed
     */
    public ZkLease acquire() throws InterruptedException {
        return (ZkLease) take(1, Deadline.forever()).orElseThrow().iterator().next();
    }

    /**
     * Acquires one lease if one is free within the time given, as Curator's does; a time of zero or less makes one try
     * that never waits. The time covers the whole acquire: the mutex, the lease, and any reconnect.
     *
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return the lease, or null if none was free in time (nothing is left behind)
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public ZkLease acquire(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(time, unit))).orElse(null);
    }

    /**
     * Acquires one lease if one is free within {@code timeout}; see {@link #acquire(long, TimeUnit)}.
     *
     * @param timeout the longest time to wait; zero or negative makes one try that never waits
     * @return the lease, or empty if none was free in time (nothing is left behind)
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public Optional<ZkLease> acquire(Duration timeout) throws InterruptedException {
        return acquire(Deadline.after(Checks.toNanos(timeout)));
    }

    /**
     * Acquires {@code qty} leases at once, waiting as long as it takes; see {@link #acquire()}.
     *
     * @param qty how many leases, at least 1 and at most the lease count (of a fixed count)
     * @return the leases, each a {@link ZkLease}
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws IllegalArgumentException if {@code qty} is below 1 or above a fixed lease count
     * @throws IllegalStateException if the client is not started or is closed
     */
    public Collection<Lease> acquire(int qty) throws InterruptedException {
        checkQuantity(qty);
        return take(qty, Deadline.forever()).orElseThrow();
    }

    /**
     * Acquires {@code qty} leases at once if they are free within the time given; see {@link #acquire(long, TimeUnit)}.
     *
     * @param qty how many leases, at least 1 and at most the lease count (of a fixed count)
     * @param time the longest time to wait
     * @param unit the unit of {@code time}
     * @return the leases, or null if they were not free in time (nothing is left behind)
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws NullPointerException if {@code unit} is null
     * @throws IllegalArgumentException if {@code qty} is below 1 or above a fixed lease count
     * @throws IllegalStateException if the client is not started or is closed
     */
    public Collection<Lease> acquire(int qty, long time, TimeUnit unit) throws InterruptedException {
        long nanos = Checks.toNanos(time, unit);
        checkQuantity(qty);
        return take(qty, Deadline.after(nanos)).orElse(null);
    }

    /**
     * Acquires {@code qty} leases at once if they are free within {@code timeout}; see {@link #acquire(int, long,
     * TimeUnit)}.
     *
     * @param qty how many leases, at least 1 and at most the lease count (of a fixed count)
     * @param timeout the longest time to wait; zero or negative makes one try that never waits
     * @return the leases, or empty if they were not free in time (nothing is left behind)
     * @throws InterruptedException if the thread is interrupted before or while waiting (the flag is cleared)
     * @throws ZkLockException if ZooKeeper refuses a request
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code qty} is below 1 or above a fixed lease count
     * @throws IllegalStateException if the client is not started or is closed
     */
    public Optional<Collection<Lease>> acquire(int qty, Duration timeout) throws InterruptedException {
        long nanos = Checks.toNanos(timeout);
        checkQuantity(qty);
        return take(qty, Deadline.after(nanos));
    }

    /**
     * Acquires one lease with no thread waiting, as long as it takes; see {@link #acquireAsync(int, Duration)}.
     *
     * @return a future of the lease
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<ZkLease> acquireAsync() {
        return takeAsync(1, null, ZkSemaphore::single);
    }

    /**
     * Acquires one lease with no thread waiting, within {@code timeout}; see {@link #acquireAsync(int, Duration)}.
     *
     * @param timeout the longest time to wait; zero or negative makes one try that never waits
     * @return a future of the lease
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<ZkLease> acquireAsync(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return takeAsync(1, timeout, ZkSemaphore::single);
    }

    /**
     * Acquires {@code qty} leases at once with no thread waiting, as long as it takes; see
     * {@link #acquireAsync(int, Duration)}.
     *
     * @param qty how many leases, at least 1 and at most the lease count (of a fixed count)
     * @return a future of the leases
     * @throws IllegalArgumentException if {@code qty} is below 1 or above a fixed lease count
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<Collection<Lease>> acquireAsync(int qty) {
        checkQuantity(qty);
        return takeAsync(qty, null, leases -> leases);
    }

    /**
     * Acquires {@code qty} leases at once with no thread waiting: the wait rides on ZooKeeper watches, dependent stages
     * run on the common fork-join pool, never on ZooKeeper's event thread. Cancelling the future withdraws and deletes
     * what was made. Cost: as {@link #acquire(int)}.
     *
     * @param qty how many leases, at least 1 and at most the lease count (of a fixed count)
     * @param timeout the longest time to wait; zero or negative makes one try that never waits
     * @return a future of the leases; it fails with {@link LockTimeoutException} if the time runs out (nothing is left
     *     behind), with {@link ZkLockException} if ZooKeeper refuses a request
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if {@code qty} is below 1 or above a fixed lease count
     * @throws IllegalStateException if the client is not started or is closed
     */
    public CompletableFuture<Collection<Lease>> acquireAsync(int qty, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        checkQuantity(qty);
        return takeAsync(qty, timeout, leases -> leases);
    }

    /**
     * Returns a lease: closes it (for a {@link ZkLease}, one delete; see {@link ZkLease#close()}).
     *
     * @param lease the lease to return; returning it again does nothing
     * @throws NullPointerException if {@code lease} is null
     * @throws ZkLockException if ZooKeeper refuses the delete
     */
    public void returnLease(Lease lease) {
        Objects.requireNonNull(lease, "lease");
        try {
            lease.close();
        } catch (IOException e) {
            throw new ZkLockException(
                    "could not return lease " + lease.getNodeName() + " of semaphore '" + path() + "'",
                    path(),
                    false,
                    null,
                    e);
        }
    }

    /**
     * Returns every lease of {@code leases}, each as {@link #returnLease(Lease)} does; a failure does not stop the
     * others, and the first is thrown with the rest suppressed.
     *
     * @param leases the leases to return
     * @throws NullPointerException if {@code leases} or one of its leases is null
     * @throws ZkLockException if ZooKeeper refuses a delete
     */
    public void returnAll(Collection<Lease> leases) {
        Objects.requireNonNull(leases, "leases");
        leases.forEach(lease -> Objects.requireNonNull(lease, "lease"));
        Failures failures = new Failures();
        for (Lease lease : leases) {
            try {
                returnLease(lease);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        failures.throwIfAny();
    }

    /**
     * Returns the names of the lease nodes out now (Curator's semaphore answers their names too), in sequence order:
     * for monitoring, not for synchronization control. One listing.
     *
     * @return the names, empty if the semaphore was never used
     * @throws InterruptedException if the thread is interrupted while listing
     * @throws ZkLockException if ZooKeeper refuses the listing
     * @throws IllegalStateException if the client is not started or is closed
     */
    public Collection<String> getParticipantNodes() throws InterruptedException {
        return queue.leases().participantNodes().stream()
                .map(ZKPaths::getNodeFromPath)
                .toList();
    }

    /**
     * Adds a listener that hears every state change of every lease of this semaphore. No ZooKeeper call.
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
     * Returns the semaphore's path, relative to the client's namespace.
     *
     * @return the path given to the constructor
     */
    public String path() {
        return queue.path();
    }

    @Override
    public String toString() {
        return "ZkSemaphore[" + path() + (fixedLeases > 0 ? ", " + fixedLeases + " leases]" : ", shared count]");
    }

    private Optional<ZkLease> acquire(Deadline deadline) throws InterruptedException {
        return take(1, deadline).map(ZkSemaphore::single);
    }

    private static ZkLease single(Collection<Lease> leases) {
        return (ZkLease) leases.iterator().next();
    }

    private void checkQuantity(int qty) {
        Checks.requireArgument(qty >= 1, "qty of semaphore '%s' must be at least 1, not %d", path(), qty);
        Checks.requireArgument(
                fixedLeases == 0 || qty <= fixedLeases,
                "qty of semaphore '%s' must be at most its %d leases, not %d",
                path(),
                fixedLeases,
                qty);
    }

    private Optional<Collection<Lease>> take(int qty, Deadline deadline) throws InterruptedException {
        long start = System.nanoTime();
        Optional<List<LockNode>> granted = queue.acquire(qty, deadline);
        queue.leases().metrics().acquire(path(), granted.isPresent(), System.nanoTime() - start);
        return granted.map(this::leasesOf);
    }

    /**
     * Starts an acquire with no thread waiting; the future completes on the common fork-join pool with the leases as
     * {@code shape} gives them, and cancelling it withdraws.
     */
    private <T> CompletableFuture<T> takeAsync(int qty, Duration timeout, Function<Collection<Lease>, T> shape) {
        Deadline deadline = timeout == null ? Deadline.forever() : Deadline.after(Checks.toNanos(timeout));
        long start = System.nanoTime();
        CompletableFuture<List<LockNode>> outcome = queue.acquireAsync(qty, deadline, timeout);
        CompletableFuture<T> result = new CompletableFuture<>();
        outcome.whenComplete((nodes, failure) -> ForkJoinPool.commonPool().execute(() -> {
            if (failure != null) {
                if (failure instanceof LockTimeoutException) {
                    queue.leases().metrics().acquire(path(), false, System.nanoTime() - start);
                }
                result.completeExceptionally(failure);
                return;
            }
            queue.leases().metrics().acquire(path(), true, System.nanoTime() - start);
            Collection<Lease> leases = leasesOf(nodes);
            if (!result.complete(shape.apply(leases))) {
                returnAll(leases); // cancelled while the leases were being granted
            }
        }));
        result.whenComplete((leases, failure) -> {
            if (result.isCancelled()) {
                outcome.cancel(false);
            }
        });
        return result;
    }

    /** Makes each granted node (tracked and admitted by the engine) a lease, returned by a delete. */
    private Collection<Lease> leasesOf(List<LockNode> nodes) {
        LockPath leases = queue.leases();
        List<Lease> made = new ArrayList<>();
        for (LockNode node : nodes) {
            made.add(new ZkLease(node, () -> {
                leases.metrics().released(path(), node.heldNanos());
                leases.end(node);
            }));
        }
        return List.copyOf(made);
    }

    /** Has {@code hooks} see the lease step's queue events; for tests. */
    void setHooks(QueueHooks hooks) {
        queue.leases().setHooks(hooks);
    }
}
