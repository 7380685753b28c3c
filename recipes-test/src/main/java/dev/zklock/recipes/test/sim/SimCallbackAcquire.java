package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockTimeoutException;
import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.CallbackRunner;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LeaseQueue;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One acquire run by the engine's own asynchronous code on a simulated client, through the client's ports ({@link
 * SimPort}): of one or several lock queues, the engine's {@link CallbackRunner} (and so its {@code AsyncSteps}, {@code
 * QueueRequests}, {@code NodeWatcher} and {@code OwnNodeWatch}); of a semaphore's leases, the engine's {@link
 * LeaseQueue#acquireAsync} (its internal mutex on a {@code CallbackRunner}, its lease step on the {@code LeaseRunner},
 * the mutex's release). Every request, watch, deadline and wait for a connection is the engine's own code, on the
 * simulated server and the seed's clock. The grant is tracked and admitted by the engine's own {@link
 * Admission#admitLater} on the client's real tracker, as an asynchronous acquire is: it enters again while its nodes are
 * lost before the deadline (a semaphore from its mutex). Cancelling ends the acquire as a cancel of {@code
 * acquireAsync()} does: a grant being admitted then is dropped once decided. Not thread-safe.
 */
final class SimCallbackAcquire {
    /** How an acquire ends. */
    interface Outcome {
        /** Our nodes, one per queue, granted and admitted. */
        void granted(List<LockNode> nodes);

        /** Without the lock: timed out, interrupted, or failed. */
        void ended(String why);
    }

    /** The engine's asynchronous acquire, given its deadline and the timeout it came from (null for none). */
    private interface Take {
        CompletableFuture<List<LockNode>> start(Deadline deadline, Duration timeout);
    }

    private final SimWorld world;
    private final SimClient client;
    private final Take take;
    private final long deadline; // on the world's clock, or SimWorld.FOREVER
    private final String label;
    private final Outcome outcome;
    private CompletableFuture<List<LockNode>> taking; // the acquire under way
    private boolean abandoned;
    private boolean ended;

    private SimCallbackAcquire(
            SimWorld world, SimClient client, Take take, long deadline, String label, Outcome outcome) {
        this.world = world;
        this.client = client;
        this.take = take;
        this.deadline = deadline;
        this.label = label;
        this.outcome = outcome;
    }

    /** An acquire of {@code queues} (a plain lock's, a read or write lock's, a multi-lock's), as a lock's is. */
    static SimCallbackAcquire queues(
            SimWorld world, SimClient client, List<LockPath> queues, long deadline, String label, Outcome outcome) {
        List<LockPath> paths = List.copyOf(queues);
        Take take = (engineDeadline, timeout) -> Admission.admitLater(
                engineDeadline,
                () -> new CallbackRunner(paths, engineDeadline, timeout).start(),
                () -> new LockTimeoutException(paths.get(0).path(), timeout == null ? Duration.ZERO : timeout));
        return new SimCallbackAcquire(world, client, take, deadline, label, outcome);
    }

    /** An acquire of {@code count} leases of {@code semaphore}, as {@code ZkSemaphore.acquireAsync} makes it. */
    static SimCallbackAcquire leases(
            SimWorld world,
            SimClient client,
            LeaseQueue semaphore,
            int count,
            long deadline,
            String label,
            Outcome outcome) {
        Take take = (engineDeadline, timeout) -> semaphore.acquireAsync(count, engineDeadline, timeout);
        return new SimCallbackAcquire(world, client, take, deadline, label, outcome);
    }

    void start() {
        Deadline engineDeadline = client.deadline(deadline);
        Duration timeout = deadline == SimWorld.FOREVER ? null : Duration.ofNanos(engineDeadline.remainingNanos());
        CompletableFuture<List<LockNode>> started;
        try {
            started = take.start(engineDeadline, timeout);
        } catch (IllegalStateException e) { // a client closed: refused before any request, as acquireAsync refuses it
            end(why(e));
            return;
        }
        taking = started;
        started.whenComplete((nodes, failure) -> {
            if (ended) {
                return;
            }
            if (failure == null) {
                ended = true;
                outcome.granted(nodes);
            } else {
                end(why(failure));
            }
        });
    }

    /** Ends the acquire from outside (an interrupt, a cancel): the acquire's future is cancelled. */
    void abandon() {
        if (ended || taking == null) {
            return;
        }
        abandoned = true;
        world.note(label + " cancels its acquire");
        taking.cancel(false);
    }

    private String why(Throwable failure) {
        if (failure instanceof CancellationException) {
            return "interrupted";
        }
        if (failure instanceof LockTimeoutException) {
            return "timed out";
        }
        if (failure instanceof IllegalStateException && client.isClosed()) {
            return "client closed";
        }
        return "error: " + failure;
    }

    private void end(String why) {
        if (!ended) {
            ended = true;
            outcome.ended(abandoned && !why.startsWith("error") ? "interrupted" : why);
        }
    }
}
