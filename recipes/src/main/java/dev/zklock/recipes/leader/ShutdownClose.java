package dev.zklock.recipes.leader;

import java.util.concurrent.atomic.AtomicReference;

/**
 * An optional shutdown hook that closes one participant when the JVM exits, so that the next one leads at once rather
 * than after the session times out; removed when the participant closes, so no hook outlives it. Safe for use by
 * multiple threads; no ZooKeeper call of its own.
 */
final class ShutdownClose {
    private final AtomicReference<Thread> hook = new AtomicReference<>();

    /**
     * Registers a hook that unregisters itself (nothing on the JVM's own hook thread; run by a test, it does) and then
     * runs {@code close}, which closes the participant unless it is closed already; nothing if one is registered.
     */
    void register(String name, Runnable close) {
        Thread thread = new Thread(
                () -> {
                    remove();
                    close.run();
                },
                name);
        if (hook.compareAndSet(null, thread)) {
            Runtime.getRuntime().addShutdownHook(thread);
        }
    }

    /** Removes the hook, if any; nothing from the hook itself, or once the JVM is shutting down. */
    void remove() {
        Thread thread = hook.getAndSet(null);
        if (thread == null || thread == Thread.currentThread()) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(thread);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs, or ran: it finds the participant closed
        }
    }

    /** The registered hook, or null: for tests, which run it rather than exit. */
    Thread hook() {
        return hook.get();
    }
}
