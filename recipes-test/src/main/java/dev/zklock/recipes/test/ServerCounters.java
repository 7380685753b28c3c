package dev.zklock.recipes.test;

import java.util.Map;

/**
 * The request and packet counters of a running ZooKeeper server, read with the {@code mntr} four-letter word. Every
 * request gets exactly one reply, so over a quiet window the difference in packets received is the number of requests
 * and the difference in packets sent minus packets received is the number of watch notifications (pings count on both
 * sides). Counters are server-wide: measure one scenario at a time. An {@code mntr} call adds packets of its own (one
 * received, and a number sent that grows with the size of its answer), so a reading makes two more calls at once to
 * measure that cost, and {@link #requestsSince} and {@link #watchEventsSince} take off the {@value #CALLS} calls that
 * lie between two readings: for the packets received, the earlier reading's last two and the later reading's first; for
 * the packets sent, the earlier reading's three (a call's answer is sent after the counters it reports were read), each
 * at the earlier reading's cost, whose answers were as long (a later reading's may be longer). The cost is the smaller of
 * the two measures: a packet of someone else that arrives between two calls (a request sent just before the reading
 * and not waited for, a ping) would otherwise be taken for the reading's own and taken off the count
 * ({@code OwnPredecessorTest} counted one request fewer than were sent so, once in a loaded build).
 *
 * @param packetsReceived requests received by the server since it started (pings included)
 * @param packetsSent packets sent by the server since it started (replies and watch events)
 * @param readingReceived packets received for one {@code mntr} call, measured when this reading was made
 * @param readingSent packets sent for one {@code mntr} call, measured when this reading was made
 * @param callsBefore the {@code mntr} calls this reading made before the one whose counters it keeps, to find them
 *     settled ({@link #settled}); 0 for {@link #read}
 */
public record ServerCounters(
        long packetsReceived, long packetsSent, long readingReceived, long readingSent, int callsBefore) {

    /** The system property that must allow {@code mntr} before the server starts. */
    public static final String FOUR_LETTER_WORDS = "zookeeper.4lw.commands.whitelist";

    /**
     * Reads the counters of the server at {@code host:port}: one reading ({@value #CALLS} four-letter-word connections,
     * not ZooKeeper requests), for a reader that polls under traffic and takes each reading's own packets off.
     *
     * @param host the server's host
     * @param port the server's client port
     * @return the current counters
     * @throws IllegalStateException if the server cannot be asked, or does not allow {@code mntr}
     */
    public static ServerCounters read(String host, int port) {
        return once(host, port);
    }

    /**
     * Reads the counters of the server at {@code host:port} once they have settled: readings one after another until
     * nothing but the readings themselves moved between two of them (at most {@value #SETTLE_TRIES} more), the last
     * returned. A test's window then starts after what was on its way when it began (a request sent before and not
     * waited for) and ends after what its last reply caused: the server counts a packet it sent a moment after the
     * client may have read it (over 300 windows of one request, reading once, 1 to 3 counted one watch event too few).
     *
     * @param host the server's host
     * @param port the server's client port
     * @return the settled counters
     * @throws IllegalStateException if the server cannot be asked, or does not allow {@code mntr}
     */
    public static ServerCounters settled(String host, int port) {
        ServerCounters last = once(host, port);
        int calls = 0;
        for (int i = 0; i < SETTLE_TRIES; i++) {
            ServerCounters next = once(host, port);
            calls += CALLS;
            if (next.requestsSince(last) == 0 && next.watchEventsSince(last) == 0) {
                break;
            }
            last = next;
        }
        ServerCounters settled = once(host, port);
        return new ServerCounters(
                settled.packetsReceived,
                settled.packetsSent,
                settled.readingReceived,
                settled.readingSent,
                calls + CALLS);
    }

    /** How many more readings {@link #settled} takes, at most, to find the server's counts settled. */
    private static final int SETTLE_TRIES = 10;

    private static ServerCounters once(String host, int port) {
        long[] first = packets(host, port);
        long[] second = packets(host, port);
        long[] third = packets(host, port);
        return new ServerCounters(
                first[0],
                first[1],
                Math.min(second[0] - first[0], third[0] - second[0]),
                Math.min(second[1] - first[1], third[1] - second[1]),
                0);
    }

    /** The {@code mntr} calls between two readings, which the counts between them take off. */
    public static final int CALLS = 3;

    private static long[] packets(String host, int port) {
        Map<String, String> values = Mntr.read(host, port);
        String received = values.get("zk_packets_received");
        String sent = values.get("zk_packets_sent");
        if (received == null || sent == null) {
            throw new IllegalStateException(
                    "mntr of " + host + ":" + port + " has no packet counters (does it allow mntr?): " + values);
        }
        return new long[] {Long.parseLong(received), Long.parseLong(sent)};
    }

    /**
     * Returns the requests received since {@code earlier}.
     *
     * @param earlier an earlier reading of the same server
     * @return the number of requests in between
     */
    public long requestsSince(ServerCounters earlier) {
        return packetsReceived
                - earlier.packetsReceived
                - (CALLS - 1 + callsBefore) * earlier.readingReceived
                - readingReceived;
    }

    /**
     * Returns the watch notifications sent since {@code earlier}: packets sent minus replies.
     *
     * @param earlier an earlier reading of the same server
     * @return the number of watch events in between
     */
    public long watchEventsSince(ServerCounters earlier) {
        return (packetsSent - earlier.packetsSent - CALLS * earlier.readingSent - callsBefore * readingSent)
                - requestsSince(earlier);
    }
}
