package dev.zklock.cli.bench;

import dev.zklock.cli.ConnectString;
import dev.zklock.recipes.test.ServerCounters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * The request and packet counters of every server of an ensemble at one moment, summed server by server: a client's
 * requests and its watch events go through the one server it is connected to.
 *
 * <p>Each server is read with {@code mntr} ({@link ServerCounters}), except the servers of an ensemble embedded in this
 * JVM: their {@code mntr} gauges live in one JVM-wide registry where the last server started wins, so every server
 * reports the same one server's packets. Those are read with {@code stat}, whose "Received" and "Sent" lines are the
 * server's own; one {@code stat} reading costs that server one packet received and one sent, which is taken off.
 *
 * <p>A reading may also be of some sessions only ({@link #readSessions}), with {@code cons}: the packets of their
 * connections alone, so that the pings of the pool's idle clients (one each per third of the session timeout) do not
 * count as the measured client's requests. A scenario that uses one client of the pool reads its count this way.
 *
 * @param servers one reading per server, in the order of the connect string
 */
record ServerReadings(List<Reading> servers) {

    /** How to read one server's counters. */
    enum Method {
        /** The {@code mntr} four-letter word, read by {@link ServerCounters}. */
        MNTR,
        /** The {@code stat} four-letter word, for servers that share a JVM. */
        STAT
    }

    /** One server's counters. */
    interface Reading {
        /** Returns the requests received since {@code earlier}, the readings' own packets taken off. */
        long requestsSince(Reading earlier);

        /** Returns the watch events sent since {@code earlier}. */
        long watchEventsSince(Reading earlier);

        /** Returns the packets a reading like this one makes the server count as received. */
        long ownReceived();

        /** Returns the packets a reading like this one makes the server count as sent. */
        long ownSent();
    }

    /**
     * Reads every server, or returns empty if one cannot be asked (a server that does not allow the four-letter word).
     */
    static Optional<ServerReadings> read(List<ConnectString.Server> servers, Method method) {
        List<Reading> readings = new ArrayList<>();
        try {
            for (ConnectString.Server server : servers) {
                readings.add(
                        method == Method.MNTR
                                ? new Mntr(ServerCounters.read(server.host(), server.port()))
                                : Stat.read(server.host(), server.port()));
            }
        } catch (IllegalStateException notAllowed) {
            return Optional.empty();
        }
        return Optional.of(new ServerReadings(List.copyOf(readings)));
    }

    /**
     * Reads, server by server, the packets of the connections of {@code sessionIds} alone ({@code cons}), or returns
     * empty if a server does not allow {@code cons}. A session not connected to a server counts nothing there; the
     * reading's own connection has no session, so it costs nothing.
     */
    static Optional<ServerReadings> readSessions(List<ConnectString.Server> servers, Set<Long> sessionIds) {
        List<Reading> readings = new ArrayList<>();
        for (ConnectString.Server server : servers) {
            String reply = fourLetterWord(server.host(), server.port(), "cons");
            if (!reply.contains("recved=")) {
                return Optional.empty(); // not allowed: the server answers with a sentence
            }
            readings.add(Sessions.parse(reply, sessionIds));
        }
        return Optional.of(new ServerReadings(List.copyOf(readings)));
    }

    /** Sends the four-letter word {@code word} to the server at {@code host:port}; returns its answer. */
    private static String fourLetterWord(String host, int port, String word) {
        try {
            return FourLetterWordMain.send4LetterWord(host, port, word);
        } catch (IOException | org.apache.zookeeper.common.X509Exception.SSLContextException e) {
            throw new IllegalStateException("cannot read " + word + " from " + host + ":" + port, e);
        }
    }

    /**
     * What the servers counted over a window: requests and watch events, or empty where the servers could not be asked.
     *
     * @param requests the requests all servers received
     * @param watchEvents the watch events all servers sent
     */
    record Window(OptionalLong requests, OptionalLong watchEvents) {
        /**
         * Returns what the servers counted between two readings when {@code readingsBetween} more readings of the same
         * servers were made in between (polling them), those readings' own packets taken off as {@code after}, made
         * while the servers were quiet, measured them. (Chaining the windows between the readings would not do: a
         * reading made under traffic measures that traffic as its own packets, and takes it off.)
         */
        static Window between(Optional<ServerReadings> before, Optional<ServerReadings> after, int readingsBetween) {
            Window window = between(before, after);
            if (after.isEmpty() || readingsBetween == 0) {
                return window;
            }
            long received = 0;
            long sent = 0;
            for (Reading server : after.get().servers()) {
                received += readingsBetween * server.ownReceived();
                sent += readingsBetween * server.ownSent();
            }
            long requests = window.requests().getAsLong() - received;
            return new Window(
                    OptionalLong.of(requests),
                    OptionalLong.of(
                            window.requests().getAsLong() + window.watchEvents().getAsLong() - sent - requests));
        }

        /** Returns what the servers counted between two readings, each empty if it could not be made. */
        static Window between(Optional<ServerReadings> before, Optional<ServerReadings> after) {
            if (before.isEmpty() || after.isEmpty()) {
                return new Window(OptionalLong.empty(), OptionalLong.empty());
            }
            return new Window(
                    after.get().requestsSince(before.get()), after.get().watchEventsSince(before.get()));
        }
    }

    /** Returns the requests all servers received since {@code earlier}. */
    OptionalLong requestsSince(ServerReadings earlier) {
        long sum = 0;
        for (int i = 0; i < servers.size(); i++) {
            sum += servers.get(i).requestsSince(earlier.servers.get(i));
        }
        return OptionalLong.of(sum);
    }

    /** Returns the watch events all servers sent since {@code earlier}. */
    OptionalLong watchEventsSince(ServerReadings earlier) {
        long sum = 0;
        for (int i = 0; i < servers.size(); i++) {
            sum += servers.get(i).watchEventsSince(earlier.servers.get(i));
        }
        return OptionalLong.of(sum);
    }

    /** A reading with {@code mntr}. */
    private record Mntr(ServerCounters counters) implements Reading {
        @Override
        public long requestsSince(Reading earlier) {
            return counters.requestsSince(((Mntr) earlier).counters);
        }

        @Override
        public long watchEventsSince(Reading earlier) {
            return counters.watchEventsSince(((Mntr) earlier).counters);
        }

        @Override
        public long ownReceived() {
            return ServerCounters.CALLS * counters.readingReceived(); // the calls a reading makes
        }

        @Override
        public long ownSent() {
            return ServerCounters.CALLS * counters.readingSent();
        }
    }

    /**
     * A reading with {@code cons} of some sessions' connections: their packets received and sent. A connection's
     * counters start at its connect, so a session that moved to another server between two readings is not measured
     * right; the bench's sessions stay put on a healthy ensemble.
     */
    private record Sessions(long received, long sent) implements Reading {
        static Sessions parse(String cons, Set<Long> sessionIds) {
            long received = 0;
            long sent = 0;
            for (String line : cons.lines().toList()) {
                int sid = line.indexOf(",sid=0x");
                if (sid < 0) {
                    continue;
                }
                int end = line.indexOf(',', sid + 1);
                long session = Long.parseUnsignedLong(line.substring(sid + ",sid=0x".length(), end), 16);
                if (sessionIds.contains(session)) {
                    received += counter(line, "recved=");
                    sent += counter(line, "sent=");
                }
            }
            return new Sessions(received, sent);
        }

        private static long counter(String line, String name) {
            int start = line.indexOf(name) + name.length();
            int end = line.indexOf(',', start);
            return Long.parseLong(line.substring(start, end));
        }

        @Override
        public long requestsSince(Reading earlier) {
            return received - ((Sessions) earlier).received;
        }

        @Override
        public long watchEventsSince(Reading earlier) {
            return (sent - ((Sessions) earlier).sent) - requestsSince(earlier);
        }

        @Override
        public long ownReceived() {
            return 0;
        }

        @Override
        public long ownSent() {
            return 0;
        }
    }

    /** A reading with {@code stat}: the server's own "Received" and "Sent" packet counts. */
    private record Stat(long received, long sent) implements Reading {
        static Stat read(String host, int port) {
            String reply = fourLetterWord(host, port, "stat");
            return new Stat(field(reply, "Received: ", host, port), field(reply, "Sent: ", host, port));
        }

        @Override
        public long requestsSince(Reading earlier) {
            return received - ((Stat) earlier).received - 1;
        }

        @Override
        public long watchEventsSince(Reading earlier) {
            return (sent - ((Stat) earlier).sent - 1) - requestsSince(earlier);
        }

        @Override
        public long ownReceived() {
            return 1;
        }

        @Override
        public long ownSent() {
            return 1;
        }

        private static long field(String reply, String name, String host, int port) {
            return reply.lines()
                    .filter(line -> line.startsWith(name))
                    .map(line -> Long.parseLong(line.substring(name.length()).trim()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "stat of " + host + ":" + port + " has no '" + name.trim() + "' line: " + reply));
        }
    }
}
