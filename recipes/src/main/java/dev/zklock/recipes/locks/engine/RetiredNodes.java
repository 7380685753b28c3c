package dev.zklock.recipes.locks.engine;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A cohort's nodes that it let go while local threads still held them (the bounds ran out, a revocation, the node
 * known lost): each ends when its last holder releases. Part of the {@link LocalQueue} machine: no I/O itself (its
 * runner carries out the {@link LocalCommand.End}: one delete, none for a node already gone), no clock. Not
 * thread-safe: confined, as its queue is, by the {@link Cohort} runner's JVM lock.
 */
final class RetiredNodes {
    private final Map<LockNode, int[]> holdersLeft = new IdentityHashMap<>();

    /** Lets {@code node} go once its {@code holders} (at least one) have released. */
    void retire(LockNode node, int holders) {
        holdersLeft.put(node, new int[] {holders});
    }

    /** A holder of {@code node}, no longer the cohort's, released: the node ends with its last holder. */
    void released(LockNode node, List<LocalCommand> out) {
        int[] left = holdersLeft.get(node);
        if (left == null) {
            out.add(new LocalCommand.End(node));
        } else if (--left[0] == 0) {
            holdersLeft.remove(node);
            out.add(new LocalCommand.End(node));
        }
    }

    /** Whether no let-go node is still held. */
    boolean isEmpty() {
        return holdersLeft.isEmpty();
    }
}
