package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Event;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.NodeWatcher;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.EventType;

/**
 * The mirror of the engine's {@code OwnNodeWatch}: the data watch of a waiting acquisition on its own node, set with one
 * read right before the watch on the node ahead, which vouches at a grant with no listing that our node still stands.
 * Confined to the simulation's one thread.
 */
final class SimOwnWatch {
    private enum Status {
        PENDING,
        STANDS,
        GONE,
        SPENT
    }

    private final LockNode node;
    private Status status = Status.PENDING;
    private Runnable onGone; // tells the waiter, while it waits, that our node went

    private SimOwnWatch(LockNode node) {
        this.node = node;
    }

    /** {@code set} if it watches {@code node} and still vouches (or may), else a new watch: one read of our node. */
    static SimOwnWatch vouching(SimOwnWatch set, SimClient client, String label, String nodePath, LockNode node) {
        if (set != null && set.node == node && (set.status == Status.PENDING || set.status == Status.STANDS)) {
            return set;
        }
        SimOwnWatch own = new SimOwnWatch(node);
        SimServer.Watch registered = client.watch(new Object(), type -> {
            if (type == EventType.NodeDeleted) {
                own.gone();
            } else if (type == EventType.NodeDataChanged && own.status == Status.STANDS) {
                own.status = Status.SPENT;
            }
        });
        client.send(label + " watches its own node " + node.name(), server -> server.data(nodePath, registered), r -> {
            if (r.ok() && own.status == Status.PENDING) {
                own.status = Status.STANDS;
            } else if (r.code() == Code.NONODE) {
                own.gone();
            } else if (own.status == Status.PENDING) {
                own.status = Status.SPENT;
            }
        });
        return own;
    }

    /** Runs {@code told} if our node goes while the waiter waits, at once if it has gone; null: stop telling. */
    void whileWaiting(Runnable told) {
        onGone = told;
        if (told != null && status == Status.GONE) {
            told.run();
        }
    }

    /** What the waiter is told of the news ahead: our node gone, or the news, vouched for or not. */
    Event news(NodeWatcher.Wake wake) {
        return status == Status.GONE ? new Event.OwnGone() : new Event.Woken(wake, status == Status.STANDS);
    }

    /** What the waiter is told when the node ahead was gone at its read. */
    Event goneAhead(boolean fromFront) {
        return status == Status.GONE ? new Event.OwnGone() : new Event.WatchedGone(fromFront, status == Status.STANDS);
    }

    private void gone() {
        if (status == Status.GONE) {
            return;
        }
        status = Status.GONE;
        Runnable told = onGone;
        if (told != null) {
            told.run();
        }
    }
}
