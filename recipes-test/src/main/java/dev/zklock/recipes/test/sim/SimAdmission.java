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
