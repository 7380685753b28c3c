package dev.zklock.recipes.leader;

import java.util.Objects;

/**
 * A change of an election's leader as a {@link ZkLeaderObserver} tells it: a term {@link Kind#GRANTED granted} to a
 * participant, or that same term {@link Kind#REVOKED revoked}. For one observer a term's GRANTED always comes before
 * its REVOKED, and a REVOKED before the next GRANTED. An immutable value; no ZooKeeper call.
 *
 * @param kind whether the term began or ended
 * @param participant the id of the leader of that term
 * @param epoch the epoch of that term, as {@link Leader#epoch()}
 * @since 0.1.0
 */
public record LeaderChanged(Kind kind, String participant, long epoch) {
    /** Whether a term began or ended. */
    public enum Kind {
        /** The term began: its node is first. */
        GRANTED,
        /** The term ended: its node is gone. */
        REVOKED
    }

    /**
     * Checks the parts.
     *
     * @param kind whether the term began or ended
     * @param participant the id of the leader of that term
     * @param epoch the epoch of that term
     * @throws NullPointerException if {@code kind} or {@code participant} is null
     */
    public LeaderChanged {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(participant, "participant");
    }

    static LeaderChanged granted(Leader leader) {
        return new LeaderChanged(Kind.GRANTED, leader.participantId(), leader.epoch());
    }

    static LeaderChanged revoked(Leader leader) {
        return new LeaderChanged(Kind.REVOKED, leader.participantId(), leader.epoch());
    }

    /**
     * Returns the term as a {@link Leader}.
     *
     * @return the participant and epoch
     */
    public Leader leader() {
        return new Leader(participant, epoch);
    }
}
