package dev.zklock.recipes.locks;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The lock nodes of this process that were granted their lock with no node ranked before them, from just before their
 * release's delete until a little after it. Process-wide and safe for use by multiple threads; keys are node names,
 * unique because every name carries a protection id this process hands out once ({@link NodeNames#newProtectionId()})
 * and other processes' ids are random. Nothing is kept while a lock is held (the node only carries a flag).
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

    /** Records, before its delete is sent, that a node granted from the front is being released. */
    static void releasing(LockNode node) {
        if (node.isGrantedAtFront()) {
            NODES.add(node.name());
        }
    }

    /** Forgets a released node after the retention time. */
    static void released(LockNode node) {
        if (!node.isGrantedAtFront()) {
            return;
        }
        long now = System.nanoTime();
        RELEASED.add(new Released(node.name(), now));
        for (Released oldest = RELEASED.peek();
                oldest != null && now - oldest.at() > RETENTION_NANOS;
                oldest = RELEASED.peek()) {
            Released polled = RELEASED.poll(); // under a race, a younger entry may go early: that only costs a listing
            if (polled != null) {
                NODES.remove(polled.name());
            }
        }
    }

    static boolean contains(String nodeName) {
        return NODES.contains(nodeName);
    }

    private record Released(String name, long at) {}
}
