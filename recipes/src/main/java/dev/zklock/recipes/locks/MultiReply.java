package dev.zklock.recipes.locks;

import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.OpResult;

/**
 * The reply to one {@code multi} transaction.
 *
 * @param code the transaction's result code: OK, or the first failing operation's code
 * @param results one result per operation, in order
 * @param sessionId the session the transaction was sent on
 */
record MultiReply(Code code, List<OpResult> results, long sessionId) {
    boolean isOk() {
        return code == Code.OK;
    }

    boolean isRetryable() {
        return new Reply(code, null, null, List.of(), sessionId).isRetryable();
    }
}
