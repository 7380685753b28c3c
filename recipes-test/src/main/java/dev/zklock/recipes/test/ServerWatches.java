package dev.zklock.recipes.test;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

/**
 * The watches a ZooKeeper server keeps, by session, read with the {@code wchc} four-letter word (one short connection,
 * not a ZooKeeper request; the server must allow it: {@link ServerCounters#FOUR_LETTER_WORDS}). A session's entry
 * holds each path it watches once, whatever the kind of watch (a data watch, a child watch, a persistent or persistent
 * recursive one). Stateless and safe for use by multiple threads.
 */
public final class ServerWatches {
    private ServerWatches() {}

    /**
     * Returns the paths each session watches on the server at {@code host:port}.
     *
     * @param host the server's host
     * @param port the server's client port
     * @return the watched paths by session id; sessions with no watch are absent
     * @throws IllegalStateException if the server cannot be asked
     */
    public static Map<Long, Set<String>> bySession(String host, int port) {
        String reply;
        try {
            reply = FourLetterWordMain.send4LetterWord(host, port, "wchc", false, 5_000);
        } catch (IOException | X509Exception.SSLContextException e) {
            throw new IllegalStateException("cannot read wchc from " + host + ":" + port, e);
        }
        Map<Long, Set<String>> watches = new LinkedHashMap<>();
        Set<String> paths = null;
        for (String line : reply.split("\n")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("0x")) {
                paths = watches.computeIfAbsent(Long.parseUnsignedLong(trimmed.substring(2), 16), s -> new TreeSet<>());
            } else if (trimmed.startsWith("/") && paths != null) {
                paths.add(trimmed);
            } else if (!trimmed.isEmpty() && !trimmed.startsWith("0x")) {
                throw new IllegalStateException("wchc of " + host + ":" + port + " says: " + reply);
            }
        }
        return watches;
    }

    /**
     * Returns how many watches the server at {@code host:port} keeps in all: each session's watched paths, summed.
     *
     * @param host the server's host
     * @param port the server's client port
     * @return the number of (session, path) watches
     * @throws IllegalStateException if the server cannot be asked
     */
    public static int count(String host, int port) {
        return bySession(host, port).values().stream().mapToInt(Set::size).sum();
    }
}
