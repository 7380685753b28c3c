package dev.zklock.recipes.locks.drivers;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockQueueView;
import dev.zklock.recipes.locks.engine.NodeNames;
import java.util.List;

/**
 * The driver of a read lock, behind {@link LockDriver#read()}: a reader holds when no writer is ranked before it, and
 * otherwise watches the nearest writer before it. So readers share, a reader behind a queued writer waits (writers
 * cannot starve), and a write release wakes exactly the readers queued behind that writer. Curator's reader watches the
 * first writer instead, which wakes readers for nothing when writers are queued one after another. Internal to zklock,
 * not API: reach it through {@code LockDriver.read()}; it may change or go without notice.
 *
 * <p>Stateless, one shared instance: safe for use by multiple threads. {@link #decide} costs no ZooKeeper call.
 */
public final class ReadDriver implements LockDriver {
    /** The one instance, which {@link LockDriver#read()} returns. */
    public static final ReadDriver INSTANCE = new ReadDriver();

    private ReadDriver() {}

    @Override
    public LockDecision decide(LockQueueView view) {
        List<String> before = view.nodesBefore();
        for (int i = before.size() - 1; i >= 0; i--) {
            if (NodeNames.isWriter(before.get(i))) {
                return LockDecision.watch(before.get(i));
            }
        }
        return LockDecision.holds();
    }

    @Override
    public String toString() {
        return "LockDriver.read()";
    }
}
