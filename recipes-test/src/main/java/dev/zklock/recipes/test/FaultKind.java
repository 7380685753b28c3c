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
    LEADER_KILL,
    /**
     * A client's connection goes silent for a while shorter than its session timeout ({@link Faults#silenceConnection}):
     * it notices, or its connection is reset, and Curator reports SUSPENDED, then RECONNECTED on the same session. The
     * run connects its clients through {@link ClientProxies} when its settings weigh this fault.
     */
    CONNECTION_SILENCE,
    /**
     * A stranger deletes one lock node, a holder's or a waiter's ({@link Faults#deleteLockNode}), of a path whose lock
     * nodes are its own children (a semaphore's are not: its lease count rests on an internal mutex that a delete would
     * break without the holds showing it).
     */
    NODE_DELETE,
    /**
     * A client is closed while its threads acquire or hold ({@link Faults#closeClient}), and a new one takes its place,
     * as a process that restarts: the threads go on with new lock objects on the new client.
     */
    CLIENT_CLOSE;

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
