package dev.zklock.recipes.leader;

/**
 * Why a leader's term ended, as a {@link LeaderTermListener} hears it.
 *
 * @since 0.1.0
 */
public enum TermEnd {
    /**
     * The connection was suspended (no answer for two thirds of the session timeout, or a broken connection), or the
     * process seems to have paused: the node may still stand, but the leader can no longer know that it leads. The
     * latch keeps its node, and the term resumes with its epoch ({@code granted} again) if the node is found standing on
     * the same session once the connection is back; else the participant enters again.
     */
    IN_DOUBT,
    /** The session ended, or another client deleted the leader's node: someone else may lead already. */
    LOST,
    /** The leader gave its term up by {@link ZkLeaderLatch#yield()}, and entered the election again. */
    YIELDED,
    /** The latch was closed with {@code CloseMode.NOTIFY_LEADER} (a silent close, the default, tells no listener). */
    CLOSED
}
