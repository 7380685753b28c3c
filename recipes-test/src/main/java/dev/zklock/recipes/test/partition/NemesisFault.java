package dev.zklock.recipes.test.partition;

/**
 * The kinds of fault the {@link Nemesis} makes, each named as the history's {@code f} field names it. Immutable.
 */
public enum NemesisFault {
    /** A client and a server cut from each other both ways (blackhole or prohibit routes on both sides). */
    CUT("cut"),
    /** What one side sends to the other is cut (a route on that side only): client to server or server to client. */
    CUT_ONE_WAY("cut-one-way"),
    /** One server, not necessarily the leader, cut from the other two both ways: a minority and a majority. */
    PARTITION("partition"),
    /** The ensemble's leader (by {@code srvr}) cut from the other two servers both ways. */
    ISOLATE_LEADER("isolate-leader"),
    /** Two servers cut from each other both ways, the third seeing both: a bridge. */
    BRIDGE("bridge"),
    /** A server killed with SIGKILL, restarted on its own data directory at the heal. */
    KILL("kill"),
    /** A client JVM stopped with SIGSTOP for longer than its session timeout, SIGCONT at the heal. */
    PAUSE_CLIENT("pause-client"),
    /** The ensemble leader's JVM stopped with SIGSTOP, SIGCONT at the heal. */
    PAUSE_LEADER("pause-leader"),
    /** A stranger deleting lock nodes (the observer process does it when asked): an instant, healed at once. */
    STRANGER_DELETE("stranger-delete");

    private final String historyName;

    NemesisFault(String historyName) {
        this.historyName = historyName;
    }

    /** Returns the name the history uses for this kind ({@code cut-one-way}). */
    public String historyName() {
        return historyName;
    }

    /** Returns whether the fault acts on servers, after whose heal the nemesis waits for a quorum. */
    boolean touchesServers() {
        return this == PARTITION || this == ISOLATE_LEADER || this == BRIDGE || this == KILL || this == PAUSE_LEADER;
    }
}
