package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The names of lock nodes, laid out as Curator lays them out: {@code _c_<uuid>-<lockName><10-digit sequence>}. The
 * {@code _c_<uuid>-} part is Curator's protection prefix: it lets a client that lost its connection during a create
 * find out whether the create happened, by looking for a child that starts with it.
 */
public final class NodeNames {
    /** The lock names of Curator's read/write lock; equally long, as Curator's sort needs. */
    public static final String READ_LOCK_NAME = "__READ__";

    public static final String WRITE_LOCK_NAME = "__WRIT__";

    private static final Comparator<String> BY_SEQUENCE =
            Comparator.comparing(NodeNames::sequenceKey).thenComparing(Comparator.naturalOrder());

    private NodeNames() {}

    /** Returns the names in queue order: by their trailing sequence digits, as Curator orders them. */
    public static List<String> sortBySequence(Collection<String> children) {
        List<String> sorted = new ArrayList<>(children);
        sorted.sort(BY_SEQUENCE);
        return sorted;
    }

    /**
     * Returns the text a child is ordered by: its trailing digits (the sequence ZooKeeper appended), or the whole name
     * when it has none, which is what Curator's sort by "the text after the lock name" gives for lock nodes.
     */
    public static String sequenceKey(String child) {
        int start = child.length();
        while (start > 0 && Character.isDigit(child.charAt(start - 1))) {
            start--;
        }
        return start == child.length() ? child : child.substring(start);
    }

    /** Tells whether a child is a write node of a read/write lock, as Curator's reader tells it. */
    public static boolean isWriter(String child) {
        return child.contains(WRITE_LOCK_NAME);
    }

    /**
     * Tells whether a node that conflicts with ours ranks after it in a sorted listing: any node for an exclusive lock, a
     * writer's for a shared one (a read lock).
     *
     * @param ours the index of our node in {@code sorted}
     */
    static boolean conflictsBehind(List<String> sorted, int ours, boolean shared) {
        for (int i = ours + 1; i < sorted.size(); i++) {
            if (!shared || isWriter(sorted.get(i))) {
                return true;
            }
        }
        return false;
    }
}
