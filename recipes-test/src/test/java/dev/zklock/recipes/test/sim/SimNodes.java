package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.LockNode;

/** Hand-made lock nodes for the simulator's tests. Stateless. */
final class SimNodes {
    private SimNodes() {}

    /** Creates a node of the exclusive lock on {@code client}'s session and tracks it, as a grant of it would. */
    static LockNode tracked(SimWorld world, SimClient client) {
        SimServer.Result created = world.server.create(
                client.session(), Simulation.EXCLUSIVE_PATH, "_c_" + client.name + "-lock-", true, true);
        LockNode node = new LockNode(
                client.path(Simulation.EXCLUSIVE_PATH, "lock-", LockDriver.exclusive()),
                created.name(),
                created.czxid(),
                client.session());
        client.track(node);
        return node;
    }
}
