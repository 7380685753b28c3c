package dev.zklock.recipes.leader;

import org.apache.curator.framework.recipes.leader.LeaderLatchListener;

/**
 * A {@link LeaderLatchListener} that also hears each term's epoch and, at its end, why it ended: what Curator's
 * {@code isLeader} and {@code notLeader} do not say. Add it to a {@link ZkLeaderLatch} as any latch listener; each
 * {@link #granted} comes right after {@code isLeader} and each {@link #revoked} right after {@code notLeader}, in the
 * same call on the same thread or executor, so a term's two calls are never reordered
 * ({@code LeaderLatchFaultsTest}, {@code LeaderHandOverTest}). The implementation's thread safety is the caller's
 * concern only if it is added with a multi-threaded executor. No call costs a ZooKeeper request.
 *
 * @since 0.1.0
 */
public interface LeaderTermListener extends LeaderLatchListener {
    /**
     * This participant leads, in the term of {@code epoch} ({@link ZkLeaderLatch#epoch()}: larger than every other
     * participant's earlier term on the path, in any process; a term that resumes after a suspension, on its node, is
     * granted again with the epoch it had).
     *
     * @param epoch the term's epoch
     */
    void granted(long epoch);

    /**
     * The term of {@code epoch} ended: stop what it allowed, and fence late writes with the epoch.
     *
     * @param epoch the ended term's epoch
     * @param why why it ended
     */
    void revoked(long epoch, TermEnd why);

    /** Does nothing: {@link #granted} follows at once. */
    @Override
    default void isLeader() {}

    /** Does nothing: {@link #revoked} follows at once. */
    @Override
    default void notLeader() {}
}
