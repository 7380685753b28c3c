package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockTimeoutException;
import dev.zklock.recipes.locks.engine.CallbackRunner;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquire of one or several lock queues run by the engine's own {@link CallbackRunner} (and so its
 * {@code AsyncSteps}, {@code QueueRequests}, {@code NodeWatcher} and {@code OwnNodeWatch}) on a simulated client,
 * through the client's ports ({@link SimPort}): every request, watch, deadline and wait for a connection of the runner
 * is its own code, on the simulated server and the seed's clock. The grant is then tracked and admitted as {@code
 * Admission.admitLater} does ({@link SimAdmission}, still a mirror: the client's tracker is the simulated client's); a
 * semaphore's internal mutex is neither tracked nor admitted. Cancelling ends the runner as a cancel of {@code
 * acquireAsync()} does. Not thread-safe.
 */
final class SimCallbackAcquire {
    private final SimWorld world;
    private final SimClient client;
    private final List<LockPath> queues;
    private final boolean admits; // the grant is tracked and admitted (all but a semaphore's mutex)
    private final long deadline; // on the world's clock, or SimAcquisition.FOREVER
    private final String label;
    private final SimAcquisition.Outcome outcome;
    private Deadline engineDeadline; // the same deadline on the engine's clock, once started
    private CompletableFuture<List<LockNode>> taking; // the runner's outcome under way
    private List<LockNode> admitting; // granted, waiting on the admission rule
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
        engineDeadline = deadline == SimAcquisition.FOREVER
                ? Deadline.forever()
                : Deadline.after(
                        TimeUnit.MICROSECONDS.toNanos(deadline - world.now()),
                        client.context().port().timer());
        enter();
    }

    /** Ends the acquire from outside (an interrupt, a cancel); a grant waiting on the admission rule is dropped. */
    void abandon() {
        if (ended || taking == null) {
            return;
        }
        abandoned = true;
        if (admitting != null) {
            SimAdmission.drop(world, client, admitting);
            end("interrupted");
            return;
        }
        taking.cancel(false);
    }

    private void enter() {
        admitting = null;
        Duration timeout =
                deadline == SimAcquisition.FOREVER ? null : Duration.ofNanos(engineDeadline.remainingNanos());
        CompletableFuture<List<LockNode>> started = new CallbackRunner(queues, engineDeadline, timeout).start();
        taking = started;
        started.whenComplete((nodes, failure) -> {
            if (taking != started || ended) {
                return;
            }
            if (failure == null) {
                granted(nodes);
            } else {
                end(why(failure));
            }
        });
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

    private void granted(List<LockNode> nodes) {
        if (!admits) {
            ended = true;
            outcome.granted(nodes);
            return;
        }
        admitting = nodes;
        CompletableFuture<List<LockNode>> granting = taking;
        SimAdmission.admit(
                world,
                client,
                nodes,
                deadline,
                label,
                () -> !ended && taking == granting,
                () -> {
                    ended = true;
                    outcome.granted(nodes);
                },
                this::enter,
                this::end);
    }

    private void end(String why) {
        if (!ended) {
            ended = true;
            outcome.ended(abandoned && !why.startsWith("error") ? "interrupted" : why);
        }
    }
}
