package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.CallbackRunner;
import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.function.BooleanSupplier;

/**
 * The one helper every single-path lock delegates its holds to: how a hold begins (the lock's entry into the queue,
 * then tracking and metrics, for blocking and asynchronous acquires alike), what it is as a {@link LockHold}, and how
 * it ends. Who owns a hold (a thread, the instance, the hold itself) stays with the lock. Immutable and safe for use by
 * multiple threads.
 *
 * <p>Cost: an acquire costs what its runner's acquisition costs (see the engine's {@code Acquisition}); tracking and
 * metrics cost no ZooKeeper call; a release is one delete.
 */
final class LockCore {
    /** How a lock takes a first hold of its path: by default a place in the queue. */
    @FunctionalInterface
    interface Entry {
        /** Returns the granted node, or empty if the deadline passed first (nothing left behind). */
        Optional<LockNode> enter(Deadline deadline) throws InterruptedException;
    }

    /** How a lock takes a hold with no thread waiting: by default a place in the queue, with a callback runner. */
    @FunctionalInterface
    interface AsyncEntry {
        /**
         * Starts an acquire; the future completes with the granted node, or fails with {@link LockTimeoutException} or
         * the error. Cancelling it withdraws.
         *
         * @param timeout how long the acquire may take, or null for as long as it takes
         */
        CompletableFuture<List<LockNode>> start(Duration timeout);
    }

    private final LockPath path;
    private final Entry entry;
    private final AsyncEntry asyncEntry;
    private final Cohort cohort; // null: every acquisition takes a node of its own
    private final BooleanSupplier ownNode; // with a cohort: this acquisition takes a node of its own all the same
    private final Set<LockNode> ownNodes = ConcurrentHashMap.newKeySet(); // held beside the cohort's

    /** A core whose holds are places in the queue of {@code path}. */
    LockCore(LockPath path) {
        this(path, path::acquire);
    }

    /** A core whose holds are taken by {@code entry} (a read lock's read node beside its own write node, say). */
    LockCore(LockPath path, Entry entry) {
        this(path, entry, timeout -> new CallbackRunner(List.of(path), timeout).start());
    }

    /** A core whose holds are taken by {@code entry}, and by {@code asyncEntry} with no thread waiting. */
    LockCore(LockPath path, Entry entry, AsyncEntry asyncEntry) {
        this.path = path;
        this.entry = entry;
        this.asyncEntry = asyncEntry;
        this.cohort = null;
        this.ownNode = () -> true;
    }

    /**
     * A core whose threads pass one node among themselves ({@link Cohort}).
     *
     * @param shared whether local holders share the node (a read lock)
     * @param passAllowed whether the node may pass locally now
     * @param ownNode whether the calling thread's acquisition must take a node of its own, beside the cohort's (a
     *     downgrade: a read node beside the thread's own write node)
     */
    LockCore(
            LockPath path,
            Entry entry,
            CohortSettings settings,
            boolean shared,
            BooleanSupplier passAllowed,
            BooleanSupplier ownNode) {
        this.path = path;
        this.entry = entry;
        this.asyncEntry = timeout -> new CallbackRunner(List.of(path), timeout).start();
        this.cohort = new Cohort(path, entry, settings, shared, passAllowed);
        this.ownNode = ownNode;
    }

    LockPath path() {
        return path;
    }

    /**
     * Takes a hold until the deadline; once granted, the node is tracked for its connection state. The one way every
     * blocking acquire becomes a hold, and is counted in the metrics. With a cohort, a local hold of the cohort's node.
     */
    Optional<LockNode> acquire(Deadline deadline) throws InterruptedException {
        long start = System.nanoTime();
        Optional<LockNode> node;
        if (cohort == null || ownNode.getAsBoolean()) {
            node = entry.enter(deadline).map(path::track);
            if (cohort != null) {
                node.ifPresent(ownNodes::add);
            }
        } else {
            node = cohort.acquire(deadline);
        }
        path.metrics().acquire(path.path(), node.isPresent(), System.nanoTime() - start);
        return node;
    }

    /**
     * Takes a hold with no thread waiting: the future completes with a hold that belongs to the hold itself. Its
     * dependent stages run on the common fork-join pool, never on ZooKeeper's event thread; cancelling it withdraws.
     *
     * @param timeout how long the acquire may take, or null for as long as it takes
     */
    CompletableFuture<LockHold> acquireAsync(Duration timeout) {
        Checks.requireStarted(path.client(), path.path());
        CompletableFuture<LockHold> result = new CompletableFuture<>();
        long start = System.nanoTime();
        CompletableFuture<List<LockNode>> outcome = asyncEntry.start(timeout);
        outcome.whenComplete((nodes, failure) -> ForkJoinPool.commonPool().execute(() -> {
            if (failure != null) {
                if (failure instanceof LockTimeoutException) {
                    path.metrics().acquire(path.path(), false, System.nanoTime() - start);
                }
                result.completeExceptionally(failure instanceof CompletionException ? failure.getCause() : failure);
                return;
            }
            path.metrics().acquire(path.path(), true, System.nanoTime() - start);
            LockNode hold = path.track(nodes.get(0));
            if (cohort != null) {
                ownNodes.add(hold);
            }
            LockHold lockHold = holdOf(hold, () -> release(hold, hold.heldNanos()));
            if (!result.complete(lockHold)) {
                lockHold.close(); // cancelled while the lock was being granted
            }
        }));
        result.whenComplete((hold, failure) -> {
            if (result.isCancelled()) {
                outcome.cancel(false);
            }
        });
        return result;
    }

    /** Returns {@code hold} as a value for try-with-resources, whose close runs {@code release}. */
    LockHold holdOf(LockNode hold, Runnable release) {
        return new LockHold(path.path(), Map.of(path.path(), hold.token()), hold::state, release);
    }

    /**
     * Ends a hold that lasted {@code heldNanos}: reports it, and deletes its node (one request); with a cohort, ends the
     * local hold of the cohort's node ({@link Cohort#release}).
     */
    void release(LockNode hold, long heldNanos) {
        path.metrics().released(path.path(), heldNanos);
        if (cohort == null || ownNodes.remove(hold)) {
            path.end(hold);
        } else {
            cohort.release(hold);
        }
    }

    /** Returns the cohort, or null without local hand-off; for tests. */
    Cohort cohort() {
        return cohort;
    }

    /** Tells whether a thread holds a node of its own beside the cohort's (a downgrade's read node). */
    boolean hasOwnNodes() {
        return !ownNodes.isEmpty();
    }

    /** Tells whether the cohort holds a node or has threads waiting on it; false without a cohort. */
    boolean isCohortActive() {
        return cohort != null && cohort.isActive();
    }

    /** Throws if {@code hold} was lost and not yet released: it must not be entered again, nor doubled. */
    void requireNotLost(LockNode hold) {
        Checks.requireState(
                hold == null || hold.state() != LockState.LOST,
                "the hold of lock '%s' was lost (its session ended or its node went); release it before acquiring"
                        + " again",
                path.path());
    }

    /** Returns the JDK's exception for a lock the caller does not hold, naming the lock and the thread. */
    IllegalMonitorStateException notHeld() {
        return HoldCounts.notHeld(path.path());
    }
}
