package dev.zklock.recipes.locks.engine;

import java.util.List;

/**
 * Named points in the lock queue where a test can step in: block on a latch, throw, or inject a real fault (expire
 * the session, stop the server) at an exact moment of an acquire or release. The default does nothing. Hooks run on
 * the thread that acquires or releases, never on ZooKeeper's event thread.
 */
public interface QueueHooks {
    QueueHooks NONE = new QueueHooks() {};

    /**
     * Called after our create and the pipelined listing were sent (or the create alone, when it is likely right behind a
     * node of the same client), before either reply is read.
     */
    default void createSent(String lockPath, String protectedPrefix) {}

    /**
     * Called with the listing sent behind our create, and our node's name, before the driver decides; not called for a
     * create sent alone.
     */
    default void entered(String lockPath, String ourNode, List<String> children) {}

    /** Called after the watch on the node ahead was set, before waiting for it to fire. */
    default void watchSet(String lockPath, String ourNode, String watchedNode) {}

    /** Called once a thread's first hold of a per-thread lock is granted, before the lock records it as the thread's. */
    default void granted(String lockPath, String ourNode) {}

    /**
     * Called when a cohort's local waiter finds the cohort's node passed to it, before it asks Admission and holds; not
     * called for a node the waiter took as its cohort's leader.
     */
    default void passed(String lockPath, String ourNode) {}

    /** Called before the delete that releases a held node. */
    default void beforeRelease(String lockPath, String ourNode) {}

    /**
     * Called once the delete that releases a held node has its reply (or was left to Curator's guaranteed delete, or the
     * client was closed), before this client's waiters held back for that release go on ({@link ReleasesInFlight}).
     */
    default void released(String lockPath, String ourNode) {}
}
