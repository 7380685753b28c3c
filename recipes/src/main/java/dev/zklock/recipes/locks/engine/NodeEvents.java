package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;

/**
 * What the engine hears of the nodes of a lock path beside the lock's listeners: a cohort's news
 * ({@link LockPath#setNodeEvents}). Implementations must be safe for use by multiple threads and must not block; no
 * ZooKeeper call.
 */
public interface NodeEvents {
    /** Hears nothing: a lock path with no cohort. */
    NodeEvents NONE = new NodeEvents() {
        @Override
        public void stateChanged(LockNode node, LockState state) {}

        @Override
        public void revocationRequested(LockNode node) {}
    };

    /** The holds of {@code node} moved to {@code state}; on the notifier's thread, so it must not block. */
    void stateChanged(LockNode node, LockState state);

    /** Someone asked the holders of {@code node} to let go; on ZooKeeper's event thread, so it must not block. */
    void revocationRequested(LockNode node);
}
