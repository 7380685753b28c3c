package dev.zklock.recipes.locks.engine;

import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The lock nodes of one client that were granted their lock with no node ranked before them, from just before their
 * release's delete until a little after it. Owned by the client's {@link ClientContext}; safe for use by multiple
 * threads; keys are node names, unique because every name carries a protection id of the client. Nothing is kept while
 * a lock is held (the node only carries a flag).
 *
 * <p>Why: a waiter whose watched node is deleted cannot tell, from ZooKeeper's event alone, a release (nothing ahead
 * is left) from a give-up (nodes ahead may remain), so it must list the queue again. When the deleted node was granted
 * at the front, nothing ranked before it can remain (sequence numbers only grow), and the waiter can decide on the
 * queue without everything up to that node, with no listing. A waiter of any client of this process finds the entry
 * through the protection id in the node's name ({@link ClientContext#isReleasingFromFront}). The fact is timeless, so
 * keeping an entry a while after its release is safe; it is kept one second, because the releasing thread may see its
 * delete's reply before ZooKeeper's event thread hands the deletion to a waiter. A waiter that misses an entry (another
 * process's node, or an event later than that) lists the queue, which is only slower.
 *
 * <p>The retention runs on the client's clock (its {@link TimerPort}): the system's in production, the seed's in the
 * simulator, where a run read the system's clock here, and so kept or dropped an entry with the speed of the machine
 * that ran it (FrontNodesTest).
 */
public final class FrontNodes {
    private static final long RETENTION_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final Set<String> nodes = ConcurrentHashMap.newKeySet();
    private final Queue<Released> released = new ConcurrentLinkedQueue<>();
    private final Ticker clock;

    /** @param clock the client's clock, on which an entry is kept for the retention time after its release */
    public FrontNodes(Ticker clock) {
        this.clock = clock;
    }

    /** Records, before its delete is sent, that a node granted from the front is being released. */
    public void releasing(LockNode node) {
        if (node.isGrantedAtFront()) {
            nodes.add(node.name());
        }
    }

    /** Forgets released nodes after the retention time. */
    public void released(LockNode node) {
        if (!node.isGrantedAtFront()) {
            return;
        }
        long now = clock.read();
        released.add(new Released(node.name(), now));
        for (Released oldest = released.peek();
                oldest != null && now - oldest.at() > RETENTION_NANOS;
                oldest = released.peek()) {
            Released polled = released.poll(); // under a race, a younger entry may go early: that only costs a listing
            if (polled != null) {
                nodes.remove(polled.name());
            }
        }
    }

    public boolean contains(String nodeName) {
        return nodes.contains(nodeName);
    }

    private record Released(String name, long at) {}
}
