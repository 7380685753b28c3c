package dev.zklock.recipes.test;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;

/** Reads a server's {@code mntr} four-letter word: one short connection, not a ZooKeeper request. */
final class Mntr {
    private Mntr() {}

    /**
     * Returns the {@code key value} lines of the server's {@code mntr} reply, keys as the server sends them
     * ({@code zk_packets_received}, {@code zk_server_state}). A server that runs but does not serve now (an ensemble
     * member out of a quorum) gives an empty map.
     *
     * @throws IllegalStateException if the server cannot be reached
     */
    static Map<String, String> read(String host, int port) {
        String reply;
        try {
            reply = FourLetterWordMain.send4LetterWord(host, port, "mntr", false, 5_000);
        } catch (IOException | X509Exception.SSLContextException e) {
            throw new IllegalStateException("cannot read mntr from " + host + ":" + port, e);
        }
        Map<String, String> values = new HashMap<>();
        for (String line : reply.split("\n")) {
            String[] parts = line.trim().split("\\s+", 2);
            if (parts.length == 2 && parts[0].startsWith("zk_")) {
                values.put(parts[0], parts[1].trim());
            }
        }
        return values;
    }

    /** Returns the server's state ({@code leader}, {@code follower}, {@code standalone}), empty if it does not serve. */
    static Optional<String> serverState(String host, int port) {
        try {
            return Optional.ofNullable(read(host, port).get("zk_server_state"));
        } catch (IllegalStateException unreachable) {
            return Optional.empty();
        }
    }
}
