package dev.zklock.recipes.locks.engine;

import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * The reply to one ZooKeeper request sent through {@link ZooKeeperHandle}: one record per kind of answer, each with
 * only what that answer carries, and {@link Failed} for a request that failed. Immutable values.
 */
public sealed interface Reply {
    /** Returns the result code: OK for every reply but {@link Failed} and a failed {@link Transaction}. */
    Code code();

    /** Tells whether the request succeeded. */
    default boolean isOk() {
        return code() == Code.OK;
    }

    /** Tells whether the request may succeed on a later try: the connection or the session was lost meanwhile. */
    default boolean isRetryable() {
        return isRetryable(code());
    }

    /** Tells whether {@code code} means the connection or the session was lost while the request was on its way. */
    static boolean isRetryable(Code code) {
        return code == Code.CONNECTIONLOSS
                || code == Code.OPERATIONTIMEOUT
                || code == Code.SESSIONEXPIRED
                || code == Code.SESSIONMOVED
                || code == Code.REQUESTTIMEOUT;
    }

    /**
     * A node was created.
     *
     * @param path the created node's full path, sequence included
     * @param czxid its creation zxid
     */
    record Created(String path, long czxid) implements Reply {
        @Override
        public Code code() {
            return Code.OK;
        }
    }

    /**
     * A node's children (or, for the session's ephemeral nodes, their full paths).
     *
     * @param children the names, in no particular order
     */
    record Children(List<String> children) implements Reply {
        @Override
        public Code code() {
            return Code.OK;
        }
    }

    /**
     * A node's stat.
     *
     * @param stat the stat as the server read it
     */
    record NodeStat(Stat stat) implements Reply {
        @Override
        public Code code() {
            return Code.OK;
        }

        /**
         * Tells whether {@code session} owns the node (its ephemeral owner). A node found by its protection id after a
         * lost create is ours only then: the id is not a secret.
         */
        public boolean isOwnedBy(long session) {
            return stat.getEphemeralOwner() == session;
        }
    }

    /**
     * A node's data and stat.
     *
     * @param data the data, possibly empty
     * @param stat the stat as the server read it
     */
    record Data(byte[] data, Stat stat) implements Reply {
        @Override
        public Code code() {
            return Code.OK;
        }
    }

    /** A request with nothing to answer but its success (a delete, a sync, a watch removed). */
    record Done() implements Reply {
        @Override
        public Code code() {
            return Code.OK;
        }
    }

    /**
     * A transaction's answer: OK with every operation's result, or the code of the first that failed, with each
     * operation's own result where the server gave them (read-only transactions answer every operation).
     *
     * @param code the transaction's result code
     * @param results one result per operation, in order, or none
     */
    record Transaction(Code code, List<OpResult> results) implements Reply {}

    /**
     * A request that failed.
     *
     * @param code the ZooKeeper error code; a reply that never came within a request timeout is CONNECTIONLOSS
     */
    record Failed(Code code) implements Reply {}
}
