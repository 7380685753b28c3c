package dev.zklock.recipes.locks;

import java.util.List;

/**
 * Children of a lock path as one session saw them, or as a waiter may assume them after a deletion it can reason
 * about (a subset of an earlier listing, never missing a node that could block ours).
 *
 * @param children the child names, in no particular order
 * @param sessionId the session the listing was read on
 */
record Listing(List<String> children, long sessionId) {
    Listing(Reply reply) {
        this(reply.children(), reply.sessionId());
    }

    /** Tells whether our node is in this listing, on the session that created it. */
    boolean holdsPlaceOf(LockNode node) {
        return sessionId == node.sessionId() && children.contains(node.name());
    }
}
