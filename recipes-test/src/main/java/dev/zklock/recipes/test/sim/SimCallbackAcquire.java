package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockTimeoutException;
import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.CallbackRunner;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One acquire of one or several lock queues run by the engine's own {@link CallbackRunner} (and so its
 * {@code AsyncSteps}, {@code QueueRequests}, {@code NodeWatcher} and {@code OwnNodeWatch}) on a simulated client,
 * through the client's ports ({@link SimPort}): every request, watch, deadline and wait for a connection of the runner
 * is its own code, on the simulated server and the seed's clock. The grant is tracked and admitted by the engine's own
 * {@link Admission#admitLater} on the client's real tracker, as an asynchronous acquire of a lock is: it enters again
 * with a new runner while its nodes are lost before the deadline; a semaphore's internal mutex is neither tracked nor
 * admitted. Cancelling ends the acquire as a cancel of {@code acquireAsync()} does: a grant being admitted then is
 * dropped once decided. Not thread-safe.
 */
final class SimCallbackAcquire {
    private final SimWorld world;
    private final SimClient client;
    private final List<LockPath> queues;
    private final boolean admits; // the grant is tracked and admitted (all but a semaphore's mutex)
    private final long deadline; // on the world's clock, or SimAcquisition.FOREVER
    private final String label;
    private final SimAcquisition.Outcome outcome;
    private CompletableFuture<List<LockNode>> taking; // the acquire under way
    private boolean abandoned;
    private boolean ended;

    SimCallbackAcquire(
            SimWorld world,
            SimClient client,
            List<LockPath> queues,
            boolean admits,
            long deadline,
            String label,
            SimAcquisition.Outcome outcome) {
        this.world = world;
        this.client = client;
        this.queues = List.copyOf(queues);
        this.admits = admits;
        this.deadline = deadline;
        this.label = label;
        this.outcome = outcome;
    }

    void start() {
        Deadline engineDeadline = SimAdmission.engineDeadline(world, client, deadline);
        Duration timeout =
                deadline == SimAcquisition.FOREVER ? null : Duration.ofNanos(engineDeadline.remainingNanos());
        CompletableFuture<List<LockNode>> started = admits
                ? Admission.admitLater(
                        engineDeadline,
                        () -> new CallbackRunner(queues, engineDeadline, timeout).start(),
                        () -> new LockTimeoutException(queues.get(0).path(), timeout == null ? Duration.ZERO : timeout))
                : new CallbackRunner(queues, engineDeadline, timeout).start();
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
