package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.util.List;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Deletes as the engine sends them without waiting: one request per node, and Curator's guaranteed delete (sent again
 * once connected, on whatever session) when the connection is down or lost on the way; and the sweep for a create
 * whose reply was lost. Stateless.
 */
final class SimDeletes {
    private SimDeletes() {}

    static void deleteLater(SimWorld world, SimClient client, List<LockNode> nodes) {
        for (LockNode node : nodes) {
            delete(world, client, SimClient.fullPath(node));
        }
    }

    static void delete(SimWorld world, SimClient client, String path) {
        client.context().queueTails().deleting(SimServer.parentOf(path), SimServer.nameOf(path)); // before it is sent
        if (client.isClosed()) {
            return; // the node went with the closed session
        }
        client.whenConnected(
                () -> client.send("deletes " + SimServer.nameOf(path), server -> server.delete(path), result -> {
                    if (result.code() == Code.CONNECTIONLOSS) {
                        delete(world, client, path); // guaranteed: again once connected
                    }
                }));
    }

    /** Finds every node a create with {@code prefix} may have made in {@code queues}, and deletes it. */
    static void sweep(SimWorld world, SimClient client, List<LockPath> queues, String prefix) {
        if (prefix == null || client.isClosed()) {
            return;
        }
        for (LockPath queue : queues) {
            client.whenConnected(
                    () -> client.send("sweeps " + prefix, server -> server.children(queue.path(), null), result -> {
                        if (result.ok()) {
                            for (String child : result.children()) {
                                if (child.startsWith(prefix)) {
                                    delete(world, client, queue.path() + "/" + child);
                                }
                            }
                        } else if (result.code() == Code.CONNECTIONLOSS) {
                            sweep(world, client, List.of(queue), prefix);
                        }
                    }));
        }
    }
}
