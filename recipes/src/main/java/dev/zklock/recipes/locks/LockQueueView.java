package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import java.util.List;
import java.util.Objects;

/**
 * One listing of a lock queue as a {@link LockDriver} sees it: the children of the lock path in queue order, and the
 * name of our node among them. It is the single parameter of {@link LockDriver#decide(LockQueueView)}, so that new
 * facts can be added without breaking drivers.
 *
 * <p>Instances are immutable and safe for use by multiple threads. Nothing here calls ZooKeeper.
 *
 * @since 0.1.0
 */
public final class LockQueueView {
    private final String lockPath;
    private final List<String> children;
    private final String ourNode;
    private final int ourIndex;

    private LockQueueView(String lockPath, List<String> children, String ourNode, int ourIndex) {
        this.lockPath = lockPath;
        this.children = children;
        this.ourNode = ourNode;
        this.ourIndex = ourIndex;
    }

    /**
     * Returns a view of a queue, as the lock queue builds one for every decision; drivers' tests use it too.
     *
     * @param lockPath the lock path whose children these are
     * @param sortedChildren the child names in queue order, as {@link LockDriver#sort(java.util.Collection)} returned
     *     them
     * @param ourNode the name of our node, which must be among {@code sortedChildren}
     * @return the view
     * @throws NullPointerException if any argument or child is null
     * @throws IllegalArgumentException if {@code ourNode} is not among {@code sortedChildren}
     */
    public static LockQueueView of(String lockPath, List<String> sortedChildren, String ourNode) {
        Objects.requireNonNull(lockPath, "lockPath");
        Objects.requireNonNull(ourNode, "ourNode");
        List<String> children = List.copyOf(sortedChildren);
        int ourIndex = children.indexOf(ourNode);
        Checks.requireArgument(
                ourIndex >= 0, "our node '%s' is not among the children of lock '%s': %s", ourNode, lockPath, children);
        return new LockQueueView(lockPath, children, ourNode, ourIndex);
    }

    /**
     * Returns the lock path (relative to the client's namespace).
     *
     * @return the lock path
     */
    public String lockPath() {
        return lockPath;
    }

    /**
     * Returns every child of the lock path in queue order, ours included.
     *
     * @return an unmodifiable list of child names
     */
    public List<String> children() {
        return children;
    }

    /**
     * Returns the name of our node.
     *
     * @return our child name
     */
    public String ourNode() {
        return ourNode;
    }

    /**
     * Returns the position of our node in {@link #children()}.
     *
     * @return a zero-based index
     */
    public int ourIndex() {
        return ourIndex;
    }

    /**
     * Returns the children ranked before ours, nearest last: the only nodes a decision may depend on.
     *
     * @return an unmodifiable list of child names
     */
    public List<String> nodesBefore() {
        return children.subList(0, ourIndex);
    }

    @Override
    public String toString() {
        return "LockQueueView[" + lockPath + ", our node " + ourNode + " at " + ourIndex + " of " + children + "]";
    }
}
