package dev.zklock.recipes.locks;

/**
 * Hears every change of state of the locks it is registered for: on one lock with {@code addStateListener}, or on
 * every lock of a client with {@link LockStates#addListener}.
 *
 * <p>Called on a ZooKeeper or Curator notification thread: return quickly and never block there (hand work to your
 * own executor). An exception thrown by a listener is logged and does not disturb the lock or other listeners.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface LockStateListener {
    /**
     * Called when a held lock changes state.
     *
     * @param event what changed
     */
    void stateChanged(LockStateEvent event);
}
