package dev.zklock.recipes.locks;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock nodes of this process that were granted their lock with no node ranked before them, until they are
 * released. Process-wide and safe for use by multiple threads; keys are namespace-fixed node paths, unique across
 * ensembles because every node name carries a random UUID.
 *
 * <p>Why: a waiter whose watched node is deleted cannot tell, from ZooKeeper's event alone, a release (nothing ahead
 * is left) from a give-up (nodes ahead may remain), so it must list the queue again. When the deleted node was ours and
 * granted at the front, nothing ranked before it can remain (sequence numbers only grow), and the waiter can decide on
 * the queue without everything up to that node, with no listing. A waiter on the same client checks this set on
 * ZooKeeper's event thread when the deletion event arrives, which is before the releasing thread sees its delete reply
 * and removes the entry; a waiter on another client of this process may miss it and list, which is only slower.
 */
final class FrontNodes {
    private static final Set<String> NODES = ConcurrentHashMap.newKeySet();

    private FrontNodes() {}

    static void add(String fixedPath) {
        NODES.add(fixedPath);
    }

    static void remove(String fixedPath) {
        NODES.remove(fixedPath);
    }

    static boolean contains(String fixedPath) {
        return NODES.contains(fixedPath);
    }
}
