package dev.zklock.recipes.locks.drivers;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockQueueView;

/**
 * The driver of an exclusive lock, behind {@link LockDriver#exclusive()}: the first node holds; every other node
 * watches the node just before it. Internal to zklock, not API: reach it through {@code LockDriver.exclusive()}; it may
 * change or go without notice.
 *
 * <p>Stateless, one shared instance: safe for use by multiple threads. {@link #decide} costs no ZooKeeper call.
 */
public final class ExclusiveDriver implements LockDriver {
    /** The one instance, which {@link LockDriver#exclusive()} returns. */
    public static final ExclusiveDriver INSTANCE = new ExclusiveDriver();

    private ExclusiveDriver() {}

    @Override
    public LockDecision decide(LockQueueView view) {
        int ourIndex = view.ourIndex();
        return ourIndex == 0
                ? LockDecision.holds()
                : LockDecision.watch(view.children().get(ourIndex - 1));
    }

    @Override
    public String toString() {
        return "LockDriver.exclusive()";
    }
}
