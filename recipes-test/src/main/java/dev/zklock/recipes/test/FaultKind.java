package dev.zklock.recipes.test;

/** The real faults the chaos workload injects. */
public enum FaultKind {
    /** A client's session ends on the server ({@link Faults#expireSession}); its nodes go at once. */
    SESSION_EXPIRY,
    /** A client's TCP connection is closed ({@link Faults#dropConnection}); the session lives on. */
    CONNECTION_DROP,
    /** One server stops and starts again on the same data; a standalone server's clients all lose their connection. */
    SERVER_RESTART,
    /** The ensemble's leader stops, the others elect a new one, and the old leader starts again as a follower. */
    LEADER_KILL;

    /**
     * Tells whether this fault can be injected into an ensemble of {@code servers} servers: a standalone server has no
     * leader to kill.
     *
     * @param servers the number of servers
     * @return {@code true} if the fault applies
     */
    public boolean appliesTo(int servers) {
        return this != LEADER_KILL || servers >= 3;
    }
}
