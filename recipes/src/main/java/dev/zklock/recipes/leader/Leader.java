package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.engine.Checks;
import java.util.Objects;

/**
 * Who leads an election and in which term: the participant id (the data of the leader's node) and the epoch of its
 * term, {@link FencingToken#of FencingToken.of(czxid, 0)} of the leader's node, the value the leader's own
 * {@code epoch()} returns, and for a Curator participant the epoch a zklock one would have had on that node
 * ({@code LeaderReadTest.leader_ofALatch_isTheLeadersIdAndEpoch}). An immutable value; no ZooKeeper call.
 *
 * @param participantId the leader's id, the data of its node in UTF-8 (Curator's client default data if it set none)
 * @param epoch the epoch of its term, positive
 * @since 0.1.0
 */
public record Leader(String participantId, long epoch) {
    /**
     * Checks the parts.
     *
     * @param participantId the leader's id
     * @param epoch the epoch of its term
     * @throws NullPointerException if {@code participantId} is null
     * @throws IllegalArgumentException if {@code epoch} is not positive
     */
    public Leader {
        Objects.requireNonNull(participantId, "participantId");
        Checks.requireArgument(epoch > 0, "epoch %d of participant '%s' is not positive", epoch, participantId);
    }
}
