package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;

/**
 * Where a single-path lock object's holds begin and end: the one entry from the API into the engine. A hold is a node
 * of its own (a place in the queue, a semaphore's lease), or, with local hand-off, a local hold of the cohort's node;
 * either way it passes {@link Admission} before it is returned, and is counted in the metrics. Who owns a hold (a
 * thread, the instance, the hold itself) stays with the lock. Safe for use by multiple threads.
 *
 * <p>Cost: an acquire costs what its runner's acquisition costs ({@link Acquisition}), a local hold what the
 * {@link Cohort} says; tracking, metrics, JFR events and traces ({@link AcquisitionRecord}, {@link HoldRecord}) cost
 * no ZooKeeper call; a release is one delete (none for a local pass).
 */
public final class LockCore {
    /** How a lock takes a hold with no thread waiting: the future completes with the node, tracked and admitted. */
    @FunctionalInterface
    public interface AsyncEntry {
        /**
         * Starts an acquire; the future fails with {@link LockTimeoutException} or the error. Cancelling it withdraws.
         *
         * @param deadline the deadline of the acquire
         * @param timeout the timeout it came from, for messages, or null for as long as it takes
         */
        CompletableFuture<List<LockNode>> start(Deadline deadline, Duration timeout);
    }

    private final LockPath path;
    private final Cohort.Entry entry;
    private final AsyncEntry asyncEntry;
    private final Cohort cohort; // null: every acquisition takes a node of its own
    private final LockCore writer; // a read core: the write core whose node a downgrade's read node stands beside
    private final Map<LockNode, LockNode> ownNodes; // beside the cohort's: -> write node; null without a cohort
    private final String kind; // for JFR events and traces

    private LockCore(LockPath path, Cohort.Entry entry, AsyncEntry asyncEntry, Cohort cohort, LockCore writer) {
        this(path, entry, asyncEntry, cohort, writer, AcquisitionRecord.kindOf(path.driver()));
    }

    private LockCore(
            LockPath path, Cohort.Entry entry, AsyncEntry asyncEntry, Cohort cohort, LockCore writer, String kind) {
        this.kind = kind;
        this.path = path;
        this.entry = entry;
        this.asyncEntry = asyncEntry;
        this.cohort = cohort;
        this.writer = writer;
        this.ownNodes = cohort == null ? null : new ConcurrentHashMap<>();
    }

    /** A core whose holds are places in the queue of {@code path}. */
    public static LockCore of(LockPath path) {
        return new LockCore(path, path::acquire, queueEntry(path), null, null);
    }

    /**
     * A core whose holds are taken by {@code entry} and {@code asyncEntry} (a semaphore's single lease, say), each a node
     * of its own of {@code path}.
     */
    public static LockCore of(LockPath path, Cohort.Entry entry, AsyncEntry asyncEntry) {
        return new LockCore(path, entry, asyncEntry, null, null, "semaphore mutex");
    }

    /**
     * A core whose threads pass one node of {@code path} among themselves ({@link Cohort}).
     *
     * @param shared whether local holders share the node (a read lock)
     * @param writer for a read lock, the core of its write lock, whose cohort must hear of a downgrade's read node;
     *     else null
     */
    public static LockCore withCohort(LockPath path, CohortSettings settings, boolean shared, LockCore writer) {
        return new LockCore(
                path, path::acquire, queueEntry(path), new Cohort(path, path::acquire, settings, shared), writer);
    }

    private static AsyncEntry queueEntry(LockPath path) {
        return (deadline, timeout) -> Admission.admitLater(
                deadline,
                () -> new CallbackRunner(List.of(path), deadline, timeout).start(),
                () -> new LockTimeoutException(path.path(), timeout == null ? Duration.ZERO : timeout));
    }

    public LockPath path() {
        return path;
    }

    /**
     * Takes a hold until the deadline: a node of its own, or, with a cohort, a local hold of the cohort's node. The one
     * way every blocking acquire of a single-path lock becomes a hold, and is counted in the metrics.
     *
     * @return the hold, admitted, or empty if the deadline passed first (nothing left behind)
     */
    public Optional<Hold> acquire(Deadline deadline) throws InterruptedException {
        path.requireStarted();
        boolean first = FirstUse.enter(deadline);
        boolean timed = path.metrics().isObserved(); // a clock read costs 30 to 90 ns on a virtual machine
        long start = timed ? System.nanoTime() : 0;
        AcquisitionRecord record = AcquisitionRecord.start(path, kind);
        Optional<Hold> hold;
        try {
            hold = cohort == null ? entry.take(deadline).map(node -> Hold.of(node, 0)) : cohort.acquire(deadline);
        } catch (InterruptedException | RuntimeException | Error e) {
            AcquisitionRecord.failed(record, e);
            throw e;
        } finally {
            if (first) {
                FirstUse.passed(Thread.currentThread());
            }
        }
        if (timed) {
            path.metrics().acquire(path.path(), hold.isPresent(), System.nanoTime() - start);
        }
        return AcquisitionRecord.ended(record, hold);
    }

    /**
     * Takes a read node beside {@code write}, a write hold of the calling thread (a downgrade): it holds at once, ranked
     * with the write node. A write cohort passes its node no more while the read node stands.
     *
     * @return the hold, admitted, or empty if the deadline passed first
     * @throws IllegalStateException if the write hold is lost
     */
    public Optional<Hold> acquireAlongside(Hold write, Deadline deadline) throws InterruptedException {
        long start = System.nanoTime();
        AcquisitionRecord record = AcquisitionRecord.start(path, kind);
        Cohort writeCohort = writer == null ? null : writer.cohort;
        LockNode writeNode = write.node();
        if (writeCohort != null) {
            writeCohort.beside(writeNode, +1);
        }
        Optional<LockNode> node;
        try {
            node = path.acquireAlongside(writeNode, deadline);
        } catch (InterruptedException | RuntimeException | Error e) {
            if (writeCohort != null) {
                writeCohort.beside(writeNode, -1);
            }
            AcquisitionRecord.failed(record, e);
            throw e;
        }
        if (node.isPresent() && cohort != null) {
            ownNodes.put(node.get(), writeNode); // ended on its own at release, not by the read cohort
        } else if (node.isEmpty() && writeCohort != null) {
            writeCohort.beside(writeNode, -1);
        }
        path.metrics().acquire(path.path(), node.isPresent(), System.nanoTime() - start);
        return AcquisitionRecord.ended(record, node.map(granted -> Hold.beside(granted, write)));
    }

    /**
     * Takes a hold of a node of its own with no thread waiting (never a cohort's: an async hold belongs to no thread).
     * The future completes on the common fork-join pool, never on ZooKeeper's event thread, with the hold admitted;
     * cancelling it withdraws, and a hold granted as it is cancelled is released.
     *
     * @param timeout how long the acquire may take, or null for as long as it takes
     */
    public CompletableFuture<Hold> acquireAsync(Duration timeout) {
        path.requireStarted();
        Deadline deadline = timeout == null ? Deadline.forever() : Deadline.after(Checks.toNanos(timeout));
        CompletableFuture<Hold> result = new CompletableFuture<>();
        long start = System.nanoTime();
        AcquisitionRecord record = AcquisitionRecord.start(path, kind);
        CompletableFuture<List<LockNode>> outcome;
        try {
            outcome = asyncEntry.start(deadline, timeout);
        } catch (RuntimeException | Error e) {
            AcquisitionRecord.failed(record, e);
            throw e;
        }
        AcquisitionRecord.leaveThread(record); // its steps count their requests on the threads that send them
        outcome.whenComplete((nodes, failure) -> ForkJoinPool.commonPool().execute(() -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            if (cause != null) {
                if (cause instanceof LockTimeoutException) {
                    path.metrics().acquire(path.path(), false, System.nanoTime() - start);
                }
                AcquisitionRecord.failed(record, cause);
                result.completeExceptionally(cause);
                return;
            }
            path.metrics().acquire(path.path(), true, System.nanoTime() - start);
            Hold hold = record == null ? nodes.get(0) : record.granted(nodes.get(0));
            if (cohort != null) {
                ownNodes.put(hold.node(), hold.node());
            }
            if (!result.complete(hold)) {
                release(hold, hold.heldNanos()); // cancelled while the lock was being granted
            }
        }));
        result.whenComplete((hold, failure) -> {
            if (result.isCancelled()) {
                outcome.cancel(false);
            }
        });
        return result;
    }

    /**
     * Ends a hold that lasted {@code heldNanos}: reports it, and deletes its node (one request); with a cohort, ends the
     * local hold of the cohort's node ({@link Cohort#release}).
     */
    public void release(Hold hold, long heldNanos) {
        release(hold, heldNanos, true);
    }

    /**
     * As {@link #release(Hold, long)}; {@code timed} false if the caller read no time because no metrics listener was
     * registered ({@link #isObserved}): the release is then reported to none.
     */
    public void release(Hold hold, long heldNanos, boolean timed) {
        if (timed) {
            path.metrics().released(path.path(), heldNanos);
        }
        HoldRecord.released(hold);
        LockNode node = hold.node();
        // Entries are downgrades' read nodes and async holds: most cores never have one, and look nothing up.
        LockNode besideOf = cohort == null || ownNodes.isEmpty() ? null : ownNodes.remove(node);
        if (cohort == null || besideOf != null) {
            path.end(node);
            if (besideOf != null && besideOf != node && writer != null && writer.cohort != null) {
                writer.cohort.beside(besideOf, -1);
            }
        } else {
            cohort.release(hold);
        }
    }

    /**
     * Ends a hold of a node of its own (never a cohort's) without waiting: reports it, and sends the delete of its node
     * (one request; Curator's guaranteed delete while the connection is down, {@link LockPath#endLater}). Never blocks,
     * so it may run where nothing may wait for a reply (a leader's step-down).
     */
    public void releaseLater(Hold hold) {
        Checks.requireState(
                cohort == null, "lock '%s' passes its nodes locally: release its holds with release", path.path());
        path.metrics().released(path.path(), hold.heldNanos());
        HoldRecord.released(hold);
        path.endLater(hold.node());
    }

    /**
     * Ends the hold that stands on the node at {@code nodePath} from outside its holder: LOST at once, on the calling
     * thread ({@link ConnectionTracker#expire}), then its node deleted without waiting (one request). The holder's
     * release later clears its local record and deletes nothing that is still there.
     *
     * @return whether a hold of this lock stood on that node
     */
    public boolean expire(String nodePath) {
        LockNode node = path.context()
                .tracker()
                .expire(path.path(), nodePath, "the hold was expired from outside its holder (a time to live)");
        if (node == null) {
            return false;
        }
        path.endLater(node);
        return true;
    }

    /** Tells whether a metrics listener hears of holds: else a caller need not time them. */
    public boolean isObserved() {
        return path.metrics().isObserved();
    }

    /** Returns the cohort, or null without local hand-off; for tests. */
    public Cohort cohort() {
        return cohort;
    }

    /** Tells whether the cohort holds a node or has threads waiting on it; false without a cohort. */
    public boolean isCohortActive() {
        return cohort != null && cohort.isActive();
    }

    /** Throws if {@code hold} was lost and not yet released: it must not be entered again, nor doubled. */
    public void requireNotLost(Hold hold) {
        Checks.requireState(
                hold == null || hold.state() != LockState.LOST,
                "the hold of lock '%s' was lost (its session ended or its node went); release it before acquiring"
                        + " again",
                path.path());
    }
}
