package dev.zklock.recipes.locks;

import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * The reply to one asynchronous ZooKeeper request.
 *
 * @param code the result code
 * @param name the created node's path for a create, else null
 * @param stat the node's stat where the request returns one, else null
 * @param children the child names for a listing, else an empty list
 * @param sessionId the session the request was sent on
 */
record Reply(Code code, String name, Stat stat, List<String> children, long sessionId) {
    boolean isOk() {
        return code == Code.OK;
    }

    /**
     * Tells whether this reply to a read of a node's stat shows a node that {@code session} owns (its ephemeral
     * owner). A node found by its protection id after a lost create is ours only then: the id is not a secret.
     */
    boolean isOwnedBy(long session) {
        return isOk() && stat != null && stat.getEphemeralOwner() == session;
    }

    /** Tells whether the request may succeed on a later try: the connection or the session was lost meanwhile. */
    boolean isRetryable() {
        return code == Code.CONNECTIONLOSS
                || code == Code.OPERATIONTIMEOUT
                || code == Code.SESSIONEXPIRED
                || code == Code.SESSIONMOVED
                || code == Code.REQUESTTIMEOUT;
    }
}
