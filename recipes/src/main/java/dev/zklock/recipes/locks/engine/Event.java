package dev.zklock.recipes.locks.engine;

import java.util.List;
import org.apache.zookeeper.KeeperException.Code;

/**
 * What happens to one acquisition, as its runner tells the {@link Acquisition}: every reply, watch event, deadline and
 * connection fact the algorithm reacts to, in one place. Immutable values.
 */
public sealed interface Event {
    /**
     * The create of our nodes (one per queue, in queue order) succeeded on {@code sessionId}; {@code ownPredecessor}
     * is the node of this client right before ours, with no node created between the two (its sequence is ours
     * minus one: {@link QueueTails}), or is null if there is none or it is not known.
     */
    record Created(long sessionId, List<LockNode> nodes, LockNode ownPredecessor) implements Event {
        /** Our nodes were created; no node right before ours is known to be of this client. */
        public Created(long sessionId, List<LockNode> nodes) {
            this(sessionId, nodes, null);
        }
    }

    /**
     * The request in flight failed with {@code code} (a reply that never came within a request timeout is
     * CONNECTIONLOSS). For a create, a retryable code means the reply was lost and the node may exist.
     */
    record Failed(Code code) implements Event {}

    /** The lock paths (or the missing one) were made as containers. */
    record ParentsMade() implements Event {}

    /**
     * The children of the queues listed, in queue order, on {@code sessionId} (a missing lock path lists as empty; a
     * queue whose listing failed is null); for a {@link Command.ListQueue} the one queue's children. {@code refusal}
     * says why the lock must not go on, if the listing shows nodes of a layout it does not exclude ({@link
     * LayoutGuard}), else null.
     */
    record Listed(long sessionId, List<List<String>> children, String refusal) implements Event {
        /** A listing that shows nothing of another layout. */
        public Listed(long sessionId, List<List<String>> children) {
            this(sessionId, children, null);
        }
    }

    /**
     * After a create whose reply was lost: the queues listed after a sync, on the session that sent the create; or
     * {@code sameSession} false when the session is another one now (a node made on the ended one is not ours).
     */
    record RecoveryListed(boolean sameSession, List<List<String>> children) implements Event {}

    /**
     * The owner check of a node found by our prefix: {@code owned} if session {@code sessionId}, ours, owns it (false
     * if it is gone, or another session's); {@code czxid} its creation zxid.
     */
    record OwnerChecked(boolean owned, long sessionId, long czxid) implements Event {}

    /** The watch on the node to watch is set: the node exists, and its change will wake us. */
    record WatchSet() implements Event {}

    /**
     * The node to watch was already gone when we read it; {@code fromFront} if it had held from the front here;
     * {@code vouched} if the watch on our own node ({@link Command.Watch#vouch}) says it still stands.
     */
    record WatchedGone(boolean fromFront, boolean vouched) implements Event {
        /** The node to watch was already gone, and nothing vouches for our own node: a listing decides. */
        public WatchedGone(boolean fromFront) {
            this(fromFront, false);
        }
    }

    /**
     * The watch fired; {@code vouched} if the watch on our own node ({@link Command.Watch#vouch}) says it still stands.
     */
    record Woken(NodeWatcher.Wake wake, boolean vouched) implements Event {
        /** The watch fired, and nothing vouches for our own node: a listing decides where it matters. */
        public Woken(NodeWatcher.Wake wake) {
            this(wake, false);
        }
    }

    /**
     * The watch on our own node found it gone (deleted by another client) while we waited: the watch on the node ahead
     * is removed, or was never set.
     */
    record OwnGone() implements Event {}

    /** Our nodes, deleted to enter again, are gone (or left to the background). */
    record Deleted() implements Event {}

    /**
     * The number of leases of a semaphore changed locally (its shared count): a lease acquisition that waits decides
     * again on its last listing.
     */
    record CountChanged() implements Event {}

    /** The deadline passed while a request was in flight: the acquisition goes on until it would wait. */
    record DeadlinePassed() implements Event {}

    /**
     * The deadline passed while the runner waited for a connection or a wake-up, or a reply is still awaited one request
     * timeout after it: the acquisition gives up.
     */
    record TimedOut() implements Event {}
}
