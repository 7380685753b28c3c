package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One semaphore path as one semaphore object uses it, in the layout of Curator's {@code InterProcessSemaphoreV2}: the
 * internal mutex at {@code <path>/locks} (an {@code InterProcessMutex} queue, taken with the engine's
 * {@link Acquisition}), the leases at {@code <path>/leases} (taken with a {@link LeaseAcquisition}), the lease count,
 * and the lease acquisitions of this object that wait now (told when the count changes). Safe for use by multiple
 * threads.
 *
 * <p>One acquire: take the mutex (one round trip when it is free: create and listing pipelined; the engine's wait with
 * one watch on the node ahead otherwise), create the leases with their listing pipelined (one round trip), wait while
 * holding the mutex if there are too many leases, then release the mutex without waiting for the reply of its delete.
 * One deadline covers the whole acquire. If the session that holds the mutex ends on the way, whatever is left is
 * deleted and the acquire starts again with the mutex, within the same deadline.
 */
public final class LeaseQueue {
    private static final Logger logger = LoggerFactory.getLogger(LeaseQueue.class);

    /** Curator's names: the mutex's and the leases' parents, and the lease nodes' name. */
    public static final String LOCK_PARENT = "locks";

    public static final String LEASE_PARENT = "leases";
    public static final String LEASE_NAME = "lease-";
    private static final String MUTEX_NAME = "lock-";

    private final String path;
    private final LockPath mutex;
    private final LockPath leases;
    private final IntSupplier maxLeases;
    private final Set<LeaseRunner> waiting = ConcurrentHashMap.newKeySet();
    private final ClientContext context; // a client's not Curator's, else null (the paths look the context up)
    private volatile boolean expectWait; // the last lease step of this object waited: list with a watch at once

    /**
     * @param path the semaphore's path, relative to the client's namespace
     * @param maxLeases the lease count now
     * @param listeners the state listeners of the semaphore object, told of every change of a lease's state
     */
    public LeaseQueue(CuratorFramework client, String path, IntSupplier maxLeases, List<LockStateListener> listeners) {
        this(
                path,
                LockPath.semaphoreMutex(client, path, MUTEX_NAME),
                new LockPath(
                        client,
                        ZKPaths.makePath(path, LEASE_PARENT),
                        LEASE_NAME,
                        LockDriver.exclusive(),
                        null,
                        listeners),
                maxLeases,
                null);
    }

    /**
     * A semaphore path of a client not Curator's (the simulator's): {@code names} names its nodes and sends nothing,
     * {@code context} is the client's, over its ports; only {@link #acquireAsync} is for it.
     *
     * @param path the semaphore's path
     * @param maxLeases the lease count now
     */
    public LeaseQueue(CuratorFramework names, ClientContext context, String path, IntSupplier maxLeases) {
        this(
                path,
                LockPath.semaphoreMutex(names, Objects.requireNonNull(context, "context"), path, MUTEX_NAME),
                new LockPath(names, context, ZKPaths.makePath(path, LEASE_PARENT), LEASE_NAME, LockDriver.exclusive()),
                maxLeases,
                context);
    }

    private LeaseQueue(String path, LockPath mutex, LockPath leases, IntSupplier maxLeases, ClientContext context) {
        this.path = Checks.lockPath(path);
        this.mutex = mutex;
        this.leases = leases;
        this.maxLeases = maxLeases;
        this.context = context;
    }

    /** The semaphore's path. */
    public String path() {
        return path;
    }

    /** The leases path, whose nodes are the leases: hold tracking, release, listing. */
    public LockPath leases() {
        return leases;
    }

    /** The internal mutex's path. */
    public LockPath mutex() {
        return mutex;
    }

    /** Tells the lease acquisitions that wait that the lease count changed. */
    public void countChanged() {
        for (LeaseRunner runner : waiting) {
            runner.countChanged();
        }
    }

    /**
     * Takes {@code count} leases, waiting on the calling thread until the deadline; they are then tracked and
     * admitted ({@link Admission#admit}). The thread waits for the steps' future until the deadline plus one request
     * timeout at most, then withdraws.
     *
     * @return our lease nodes, tracked, or empty if the deadline passed first (nothing left behind)
     * @throws InterruptedException if interrupted (what was made is deleted, what was granted returned; the flag is
     *     cleared)
     */
    public Optional<List<LockNode>> acquire(int count, Deadline deadline) throws InterruptedException {
        mutex.checkCanAcquire();
        return Admission.admit(deadline, until -> take(count, until));
    }

    /**
     * Takes {@code count} leases with no thread waiting. The future completes with our lease nodes, tracked and
     * admitted, or fails with {@link LockTimeoutException} naming the path and {@code timeout}, or with the error;
     * cancelling it ends the acquire and deletes what it made.
     */
    public CompletableFuture<List<LockNode>> acquireAsync(int count, Deadline deadline, Duration timeout) {
        if (context == null) {
            Checks.requireStarted(mutex.client(), path);
        } else if (!context.port().isStarted()) {
            throw Checks.notStarted(mutex.client(), path, null);
        }
        return Admission.admitLater(deadline, () -> takeAsync(count, deadline, timeout), () -> timedOut(timeout));
    }

    private Optional<List<LockNode>> take(int count, Deadline deadline) throws InterruptedException {
        CompletableFuture<List<LockNode>> leased = takeAsync(count, deadline, Duration.ZERO);
        try {
            List<LockNode> nodes = deadline.isForever()
                    ? leased.get()
                    : Parking.get(leased, deadline.remainingNanos() + mutex.requestTimeoutNanos());
            return Optional.of(nodes);
        } catch (InterruptedException e) {
            giveBack(leased);
            throw e;
        } catch (TimeoutException e) {
            logger.warn("{}: the lease steps did not end within the deadline and a request timeout; withdrawing", path);
            giveBack(leased);
            return Optional.empty();
        } catch (ExecutionException e) {
            return AsyncSteps.timedOutOrThrown(e.getCause(), "lease acquire of '" + path + "'");
        }
    }

    /** Withdraws an acquire the caller no longer waits for; leases granted as it gave up are returned. */
    private void giveBack(CompletableFuture<List<LockNode>> leased) {
        new QueueRequests(List.of(leases)).withdraw(leased);
    }

    private CompletableFuture<List<LockNode>> takeAsync(int count, Deadline deadline, Duration timeout) {
        CompletableFuture<List<LockNode>> result = new CompletableFuture<>();
        new Attempt(count, deadline, timeout, result).takeMutex();
        return result;
    }

    private LockTimeoutException timedOut(Duration timeout) {
        return new LockTimeoutException(path, timeout == null ? Duration.ZERO : timeout);
    }

    /** One acquire, from the mutex to the end, as many times as the mutex's session ends on the way. */
    private final class Attempt {
        private final int count;
        private final Deadline deadline;
        private final Duration timeout;
        private final CompletableFuture<List<LockNode>> result;
        private final long startNanos = mutex.port().timer().read(); // the client's clock: the simulator's, simulated
        private CompletableFuture<List<LockNode>> mutexStep; // guarded by this: the mutex being taken
        private LeaseRunner leaseStep; // guarded by this: the leases being taken

        Attempt(int count, Deadline deadline, Duration timeout, CompletableFuture<List<LockNode>> result) {
            this.count = count;
            this.deadline = deadline;
            this.timeout = timeout;
            this.result = result;
            result.whenComplete((nodes, failure) -> {
                if (result.isCancelled()) {
                    cancel();
                }
            });
        }

        private void cancel() {
            CompletableFuture<List<LockNode>> taking;
            LeaseRunner leasing;
            synchronized (this) {
                taking = mutexStep;
                leasing = leaseStep;
            }
            if (taking != null) {
                taking.cancel(false);
            }
            if (leasing != null) {
                leasing.abandon();
            }
        }

        void takeMutex() {
            Duration left = deadline.isForever() ? null : Duration.ofNanos(deadline.remainingNanos());
            CompletableFuture<List<LockNode>> taking;
            try {
                // The acquire's own deadline, on the client's clock (a deadline made here would read the system's)
                taking = new CallbackRunner(List.of(mutex), deadline, left).start();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
            }
            synchronized (this) {
                mutexStep = taking;
            }
            if (result.isDone()) {
                taking.cancel(false);
            }
            taking.whenComplete((nodes, failure) -> {
                if (failure == null) {
                    takeLeases(nodes.get(0));
                } else if (unwrap(failure) instanceof LockTimeoutException) {
                    timedOut();
                } else if (!(unwrap(failure) instanceof CancellationException)) {
                    result.completeExceptionally(unwrap(failure));
                }
            });
        }

        private void takeLeases(LockNode mutexNode) {
            LeaseRunner runner = new LeaseRunner(leases, mutexNode.sessionId(), count, maxLeases, expectWait, deadline);
            synchronized (this) {
                mutexStep = null;
                leaseStep = runner;
            }
            waiting.add(runner);
            runner.start().whenComplete((end, failure) -> {
                waiting.remove(runner);
                expectWait = runner.waited();
                // After the deletes of a lease step that gave up, on the same session: the next holder of the mutex
                // never counts a lease of ours that is on its way out.
                // A grant's delete checks the leases first (one transaction): a lease deleted since its listing is LOST
                // before the next holder of the mutex can take its place.
                mutex.endLater(mutexNode, end instanceof Command.Granted granted ? granted.nodes() : List.of());
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else if (end instanceof Command.Granted granted) {
                    logger.debug(
                            "{}: {} granted after {} µs, mutex {} released",
                            path,
                            granted.nodes(),
                            micros(),
                            mutexNode.name());
                    if (!result.complete(granted.nodes())) {
                        new QueueRequests(List.of(leases)).deleteLater(granted.nodes()); // cancelled meanwhile
                    }
                } else if (end instanceof Command.GiveUp giveUp) {
                    logger.debug(
                            "{}: gave up after {} µs, deleting {} and mutex {}",
                            path,
                            micros(),
                            giveUp.nodes(),
                            mutexNode.name());
                    if (giveUp.failure() != null) {
                        result.completeExceptionally(giveUp.failure());
                    } else {
                        timedOut();
                    }
                } else if (end instanceof Command.Restart) {
                    logger.warn(
                            "{}: session 0x{} that held the semaphore's mutex ended; taking it again",
                            path,
                            Long.toHexString(mutexNode.sessionId()));
                    if (result.isDone()) {
                        return;
                    }
                    if (deadline.hasPassed()) {
                        timedOut();
                    } else {
                        takeMutex();
                    }
                }
            });
            if (result.isDone()) {
                runner.abandon();
            }
        }

        private long micros() {
            return (mutex.port().timer().read() - startNanos) / 1000;
        }

        private void timedOut() {
            result.completeExceptionally(LeaseQueue.this.timedOut(timeout));
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
