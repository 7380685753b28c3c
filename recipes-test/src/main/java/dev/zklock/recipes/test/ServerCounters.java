package dev.zklock.recipes.test;

import java.util.Map;

/**
 * The request and packet counters of a running ZooKeeper server, read with the {@code mntr} four-letter word. Every
 * request gets exactly one reply, so over a quiet window the difference in packets received is the number of requests
 * and the difference in packets sent minus packets received is the number of watch notifications (pings count on both
 * sides). Counters are server-wide: measure one scenario at a time. Reading the counters costs one packet received
 * and three sent, which {@link #requestsSince} and {@link #watchEventsSince} take off.
 *
 * @param packetsReceived requests received by the server since it started (pings included)
 * @param packetsSent packets sent by the server since it started (replies and watch events)
 */
public record ServerCounters(long packetsReceived, long packetsSent) {

    /** The system property that must allow {@code mntr} before the server starts. */
    public static final String FOUR_LETTER_WORDS = "zookeeper.4lw.commands.whitelist";

    /** What one {@code mntr} reading adds to the counters it reads next time (measured on ZooKeeper 3.9). */
    private static final long MNTR_RECEIVED = 1;

    private static final long MNTR_SENT = 3;

    /**
     * Reads the counters of the server at {@code host:port}. One four-letter-word connection, not a ZooKeeper request.
     *
     * @param host the server's host
     * @param port the server's client port
     * @return the current counters
     * @throws IllegalStateException if the server cannot be asked, or does not allow {@code mntr}
     */
    public static ServerCounters read(String host, int port) {
        Map<String, String> values = Mntr.read(host, port);
        String received = values.get("zk_packets_received");
        String sent = values.get("zk_packets_sent");
        if (received == null || sent == null) {
            throw new IllegalStateException(
                    "mntr of " + host + ":" + port + " has no packet counters (does it allow mntr?): " + values);
        }
        return new ServerCounters(Long.parseLong(received), Long.parseLong(sent));
    }

    /**
     * Returns the requests received since {@code earlier}.
     *
     * @param earlier an earlier reading of the same server
     * @return the number of requests in between
     */
    public long requestsSince(ServerCounters earlier) {
        return packetsReceived - earlier.packetsReceived - MNTR_RECEIVED;
    }

    /**
     * Returns the watch notifications sent since {@code earlier}: packets sent minus replies.
     *
     * @param earlier an earlier reading of the same server
     * @return the number of watch events in between
     */
    public long watchEventsSince(ServerCounters earlier) {
        return (packetsSent - earlier.packetsSent - MNTR_SENT) - requestsSince(earlier);
    }
}
