package dev.zklock.recipes.locks;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The lock nodes of this process that were granted their lock with no node ranked before them, kept until a little
 * after they are released. Process-wide and safe for use by multiple threads; keys are namespace-fixed node paths,
 * unique across ensembles because every node name carries a protection id this process hands out once
 * ({@link NodeNames#newProtectionId()}).
 *
 * <p>Why: a waiter whose watched node is deleted cannot tell, from ZooKeeper's event alone, a release (nothing ahead
 * is left) from a give-up (nodes ahead may remain), so it must list the queue again. When the deleted node was ours and
 * granted at the front, nothing ranked before it can remain (sequence numbers only grow), and the waiter can decide on
 * the queue without everything up to that node, with no listing. The fact is timeless, so keeping an entry a while
 * after its release is safe; it is kept one second, because the releasing thread sees its delete's reply before
 * ZooKeeper's event thread hands the deletion to a waiter of the same client. A waiter that misses an entry (another
 * process's node, or an event later than that) lists the queue, which is only slower.
 */
final class FrontNodes {
    private static final long RETENTION_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Set<String> NODES = ConcurrentHashMap.newKeySet();
    private static final Queue<Released> RELEASED = new ConcurrentLinkedQueue<>();

    private FrontNodes() {}

    static void add(String fixedPath) {
        NODES.add(fixedPath);
    }

    /** Forgets a released node after the retention time. */
    static void released(String fixedPath) {
        long now = System.nanoTime();
        RELEASED.add(new Released(fixedPath, now));
        for (Released oldest = RELEASED.peek();
                oldest != null && now - oldest.at() > RETENTION_NANOS;
                oldest = RELEASED.peek()) {
            Released polled = RELEASED.poll(); // under a race, a younger entry may go early: that only costs a listing
            if (polled != null) {
                NODES.remove(polled.path());
            }
        }
    }

    static boolean contains(String fixedPath) {
        return NODES.contains(fixedPath);
    }

    private record Released(String path, long at) {}
}
