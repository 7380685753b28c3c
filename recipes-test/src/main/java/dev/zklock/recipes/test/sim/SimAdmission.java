package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.LockNode;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The admission of the grants the simulator still makes itself (the mirrored acquisitions, {@link SimAcquisition}, and
 * the cohort's local grants, {@link SimCohort}): the engine's own wait on its rule ({@code Admission.whenDecided}, on
 * the client's real tracker), with the steps around it that {@code Admission.admitLater} takes for a grant of the
 * engine's runner. A grant of the engine's runner is admitted by {@code Admission.admitLater} itself ({@link
 * SimCallbackAcquire}). Stateless.
 */
final class SimAdmission {
    private SimAdmission() {}

    /**
     * Tracks {@code nodes}, just granted, in the client's tracker and waits for the rule ({@link #whenDecided}); drops
     * them unless it says ADMIT. Then runs {@code admitted} (the nodes are held), {@code lost} (they were lost before
     * the deadline: enter again with new ones) or {@code ended} (the client closed, or the deadline passed); nothing
     * once {@code wanted} says false.
     */
    static void admit(
            SimWorld world,
            SimClient client,
            List<LockNode> nodes,
            long deadline,
            String label,
            BooleanSupplier wanted,
            Runnable admitted,
            Runnable lost,
            Consumer<String> ended) {
        for (LockNode node : nodes) {
            client.track(node);
        }
        whenDecided(world, client, nodes, deadline, wanted, verdict -> {
            if (verdict == Admission.Verdict.ADMIT) {
                admitted.run();
                return;
            }
            drop(world, client, nodes);
            if (verdict == Admission.Verdict.CLOSED) {
                ended.accept("client closed");
            } else if (verdict == Admission.Verdict.LOST
                    && (deadline == SimAcquisition.FOREVER || world.now() < deadline)) {
                world.note(label + " lost before it was granted; entering again");
                lost.run();
            } else {
                ended.accept("timed out");
            }
        });
    }

    /** Ends holds that were not admitted: untracked, their nodes deleted without waiting. */
    static void drop(SimWorld world, SimClient client, List<LockNode> nodes) {
        for (LockNode node : nodes) {
            client.untrack(node);
        }
        SimDeletes.deleteLater(world, client, nodes);
    }

    /**
     * Tells {@code then}, once, what the engine's rule says of {@code nodes} ({@code Admission.whenDecided}): ADMIT,
     * LOST or CLOSED as soon as it says so, or WAIT when the deadline passes first. Nothing is told once {@code wanted}
     * says false (the acquire ended meanwhile, or entered again).
     */
    static void whenDecided(
            SimWorld world,
            SimClient client,
            List<LockNode> nodes,
            long deadline,
            BooleanSupplier wanted,
            Consumer<Admission.Verdict> then) {
        Admission.whenDecided(nodes, engineDeadline(world, client, deadline)).thenAccept(verdict -> {
            if (wanted.getAsBoolean()) {
                then.accept(verdict);
            }
        });
    }

    /** The engine's deadline on the client's clock for {@code deadline} on the world's ({@link SimAcquisition#FOREVER}). */
    static Deadline engineDeadline(SimWorld world, SimClient client, long deadline) {
        return deadline == SimAcquisition.FOREVER
                ? Deadline.forever()
                : Deadline.after(
                        TimeUnit.MICROSECONDS.toNanos(deadline - world.now()),
                        client.context().port().timer());
    }
}
