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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;

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

    private final LockPath path;
    private final Entry entry;

    /** A core whose holds are places in the queue of {@code path}. */
    LockCore(LockPath path) {
        this(path, path::acquire);
    }

    /** A core whose holds are taken by {@code entry} (a read lock's read node beside its own write node, say). */
    LockCore(LockPath path, Entry entry) {
        this.path = path;
        this.entry = entry;
    }

    LockPath path() {
        return path;
    }

    /**
     * Takes a hold until the deadline; once granted, the hold is tracked for its connection state. The one way every
     * blocking acquire becomes a hold, and is counted in the metrics.
     */
    Optional<LockNode> acquire(Deadline deadline) throws InterruptedException {
        long start = System.nanoTime();
        return granted(entry.enter(deadline), start);
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
        CompletableFuture<List<LockNode>> outcome = new CallbackRunner(List.of(path), timeout).start();
        outcome.whenComplete((nodes, failure) -> ForkJoinPool.commonPool().execute(() -> {
            if (failure != null) {
                if (failure instanceof LockTimeoutException) {
                    granted(Optional.empty(), start);
                }
                result.completeExceptionally(failure instanceof CompletionException ? failure.getCause() : failure);
                return;
            }
            LockNode hold = granted(Optional.of(nodes.get(0)), start).orElseThrow();
            LockHold lockHold = holdOf(hold, () -> release(hold));
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

    /** Ends a hold: stops tracking it, reports how long it was held, and deletes its node (one request). */
    void release(LockNode hold) {
        path.release(hold);
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

    private Optional<LockNode> granted(Optional<LockNode> node, long startNanos) {
        path.metrics().acquire(path.path(), node.isPresent(), System.nanoTime() - startNanos);
        return node.map(path::track);
    }
}
