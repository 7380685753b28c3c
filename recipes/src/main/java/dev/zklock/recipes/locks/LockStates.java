package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.ClientContext;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * Listeners on every lock held through one client: the place to hear, once, that a connection problem put all of a
 * service's locks in doubt or lost them. Each lock also takes listeners of its own ({@code addStateListener}).
 *
 * <p>All methods are safe for use by multiple threads and cost no ZooKeeper call. One Curator connection-state
 * listener watches each client, however many locks and listeners there are.
 *
 * @since 0.1.0
 */
public final class LockStates {
    private LockStates() {}

    /**
     * Adds a listener that hears every state change of every lock held through {@code client}.
     *
     * @param client the client whose locks to hear about
     * @param listener the listener; called on a notification thread, so it must not block
     * @throws NullPointerException if an argument is null
     */
    public static void addListener(CuratorFramework client, LockStateListener listener) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).tracker().addListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener added with {@link #addListener}; does nothing if it is not there.
     *
     * @param client the client it was added for
     * @param listener the listener to remove
     * @throws NullPointerException if an argument is null
     */
    public static void removeListener(CuratorFramework client, LockStateListener listener) {
        Objects.requireNonNull(client, "client");
        ClientContext.of(client).tracker().removeListener(Objects.requireNonNull(listener, "listener"));
    }
}
