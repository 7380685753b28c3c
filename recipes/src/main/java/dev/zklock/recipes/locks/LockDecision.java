package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import java.util.Objects;

/**
 * The answer of a {@link LockDriver}: either our node holds the lock, or it must wait and watch one named node that is
 * ranked before it.
 *
 * <p>Instances are immutable and safe for use by multiple threads. Creating one costs no ZooKeeper call.
 *
 * @since 0.1.0
 */
public final class LockDecision {
    private static final LockDecision HOLDS = new LockDecision(null, false);

    private final String nodeToWatch;
    private final boolean relistsWhenGone;

    private LockDecision(String nodeToWatch, boolean relistsWhenGone) {
        this.nodeToWatch = nodeToWatch;
        this.relistsWhenGone = relistsWhenGone;
    }

    /**
     * Returns the decision that our node holds the lock.
     *
     * @return the shared "holds" decision
     */
    public static LockDecision holds() {
        return HOLDS;
    }

    /**
     * Returns the decision that our node does not hold the lock and must wait until {@code node} changes.
     *
     * @param node the name (not the path) of a child ranked before ours in the same queue
     * @return a "watch" decision
     * @throws NullPointerException if {@code node} is null
     * @throws IllegalArgumentException if {@code node} is empty or contains a {@code '/'}
     */
    public static LockDecision watch(String node) {
        return new LockDecision(childName(node), false);
    }

    /**
     * Returns the decision that our node must wait until {@code node} changes, and must list the queue again when it
     * goes, even if it was the only node ahead of ours. A driver asks for this when a node may appear ranked before
     * ours after the queue was listed: Curator's read/write lock does that when a writer downgrades, creating a read
     * node that carries the writer's sequence number.
     *
     * @param node the name (not the path) of a child ranked before ours in the same queue
     * @return a "watch, then list again" decision
     * @throws NullPointerException if {@code node} is null
     * @throws IllegalArgumentException if {@code node} is empty or contains a {@code '/'}
     */
    public static LockDecision watchAndRelist(String node) {
        return new LockDecision(childName(node), true);
    }

    /**
     * Tells whether this decision says our node holds the lock.
     *
     * @return {@code true} for {@link #holds()}, {@code false} for {@link #watch(String)}
     */
    public boolean holdsLock() {
        return nodeToWatch == null;
    }

    /**
     * Returns the child name to watch.
     *
     * @return the node given to {@link #watch(String)}
     * @throws IllegalStateException if this decision {@linkplain #holdsLock() holds the lock}
     */
    public String nodeToWatch() {
        Checks.requireState(nodeToWatch != null, "a decision that holds the lock watches no node");
        return nodeToWatch;
    }

    /**
     * Tells whether the queue must list the children again when the watched node goes, rather than assume what the
     * listing would show.
     *
     * @return {@code true} for {@link #watchAndRelist(String)}, {@code false} otherwise
     */
    public boolean relistsWhenGone() {
        return relistsWhenGone;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockDecision other
                && Objects.equals(nodeToWatch, other.nodeToWatch)
                && relistsWhenGone == other.relistsWhenGone;
    }

    @Override
    public int hashCode() {
        return Objects.hash(nodeToWatch, relistsWhenGone);
    }

    @Override
    public String toString() {
        if (holdsLock()) {
            return "LockDecision[holds]";
        }
        return "LockDecision[" + (relistsWhenGone ? "watch and relist " : "watch ") + nodeToWatch + "]";
    }

    private static String childName(String node) {
        Objects.requireNonNull(node, "node");
        Checks.requireArgument(
                !node.isEmpty() && node.indexOf('/') < 0, "node to watch must be a child name: '%s'", node);
        return node;
    }
}
