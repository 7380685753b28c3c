package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.LockNode;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The wait of a grant on the admission rule, as the engine's {@code Admission.whenDecided} makes it: the rule is asked
 * again at every change of the client (its connection, a hold's state) until it says other than WAIT, or the deadline
 * passes. Stateless.
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
        whenDecided(world, client, nodes, deadline, label, wanted, verdict -> {
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
     * Tells {@code then}, once, what the rule says of {@code nodes}: ADMIT, LOST or CLOSED as soon as it says so, or
     * WAIT when the deadline passes first. Nothing is told once {@code wanted} says false (the acquire ended meanwhile,
     * or entered again).
     */
    static void whenDecided(
            SimWorld world,
            SimClient client,
            List<LockNode> nodes,
            long deadline,
            String label,
            BooleanSupplier wanted,
            Consumer<Admission.Verdict> then) {
        boolean[] told = new boolean[1];
        Runnable look = new Runnable() {
            @Override
            public void run() {
                if (told[0] || !wanted.getAsBoolean()) {
                    return;
                }
                Admission.Verdict verdict = client.admission(nodes);
                if (verdict == Admission.Verdict.WAIT
                        && (deadline == SimAcquisition.FOREVER || world.now() < deadline)) {
                    client.onChange(this);
                    return;
                }
                told[0] = true;
                then.accept(verdict);
            }
        };
        if (deadline != SimAcquisition.FOREVER) {
            world.at(deadline, label + " admission deadline", look);
        }
        look.run();
    }
}
