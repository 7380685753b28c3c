package dev.zklock.recipes.locks.drivers;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockQueueView;
import dev.zklock.recipes.locks.engine.NodeNames;

/**
 * The driver of a write lock, behind {@link LockDriver#write()}: a writer holds when it is first, and otherwise watches
 * the node just before it. When that node is a writer, its deletion is followed by a listing even if it was the only
 * node ahead: a Curator writer that downgrades creates a read node carrying its own sequence number, which appears
 * ahead of us after we listed. Internal to zklock, not API: reach it through {@code LockDriver.write()}; it may change
 * or go without notice.
 *
 * <p>Stateless, one shared instance: safe for use by multiple threads. {@link #decide} costs no ZooKeeper call.
 */
public final class WriteDriver implements LockDriver {
    /** The one instance, which {@link LockDriver#write()} returns. */
    public static final WriteDriver INSTANCE = new WriteDriver();

    private WriteDriver() {}

    @Override
    public LockDecision decide(LockQueueView view) {
        int ourIndex = view.ourIndex();
        if (ourIndex == 0) {
            return LockDecision.holds();
        }
        String ahead = view.children().get(ourIndex - 1);
        return NodeNames.isWriter(ahead) ? LockDecision.watchAndRelist(ahead) : LockDecision.watch(ahead);
    }

    @Override
    public String toString() {
        return "LockDriver.write()";
    }
}
