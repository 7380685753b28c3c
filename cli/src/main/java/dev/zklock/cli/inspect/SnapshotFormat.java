package dev.zklock.cli.inspect;

import dev.zklock.cli.Json;
import dev.zklock.recipes.leader.Leader;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Renders a {@link LockQueueSnapshot}: a table for people, one line of JSON for scripts. */
final class SnapshotFormat {
    private static final int DATA_COLUMN = 24;
    private static final int DATA_JSON = 1024;
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

    private SnapshotFormat() {}

    /** Returns the queue as a table, holders first, then the waiters in the order they will get the lock. */
    static String text(LockQueueSnapshot snapshot) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                "%s: %s, as of %s%n",
                snapshot.path(), summary(snapshot), TIME.format(Instant.ofEpochMilli(snapshot.takenAtMillis()))));
        if (!snapshot.nodes().isEmpty()) {
            String row = "%3s  %-7s  %-9s  %-18s  %7s  %-" + DATA_COLUMN + "s  %s%n";
            out.append(String.format(row, "#", "STATE", "KIND", "SESSION", "AGE", "DATA", "NODE"));
            for (LockQueueSnapshot.Node node : snapshot.nodes()) {
                out.append(String.format(
                        row,
                        node.position(),
                        node.holds() ? "holds" : "waits",
                        node.kind(),
                        node.session(),
                        age(node.ageMillis(snapshot.takenAtMillis())),
                        printable(node.data(), DATA_COLUMN),
                        node.name()));
            }
        }
        if (snapshot.otherChildren() > 0) {
            out.append(String.format("(%d other children are not lock nodes)%n", snapshot.otherChildren()));
        }
        return out.toString();
    }

    /** Returns the queue as one line of JSON: path, time, counts and the nodes in queue order. */
    static String json(LockQueueSnapshot snapshot) {
        return Json.write(jsonObject(snapshot));
    }

    /**
     * Returns the queue of a leader election as one line of JSON: {@link #json}'s fields and {@code leader}, the
     * participant id and the epoch of its term ({@code null} while nobody leads).
     */
    static String json(LockQueueSnapshot snapshot, Optional<Leader> leader) {
        Map<String, Object> object = jsonObject(snapshot);
        object.put(
                "leader",
                leader.map(now -> Json.object("participant", now.participantId(), "epoch", now.epoch()))
                        .orElse(null));
        return Json.write(object);
    }

    private static Map<String, Object> jsonObject(LockQueueSnapshot snapshot) {
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (LockQueueSnapshot.Node node : snapshot.nodes()) {
            nodes.add(Json.object(
                    "position", node.position(),
                    "node", node.name(),
                    "kind", node.kind(),
                    "state", node.holds() ? "holder" : "waiting",
                    "session", node.session(),
                    "created", Instant.ofEpochMilli(node.createdMillis()).toString(),
                    "ageMs", node.ageMillis(snapshot.takenAtMillis()),
                    "data", printable(node.data(), DATA_JSON)));
        }
        return Json.object(
                "path", snapshot.path(),
                "time", Instant.ofEpochMilli(snapshot.takenAtMillis()).toString(),
                "holders", snapshot.holders(),
                "waiters", snapshot.waiters(),
                "otherChildren", snapshot.otherChildren(),
                "nodes", nodes);
    }

    /** Returns "free", "1 holder, 2 waiting", or for a semaphore "semaphore, 3 leases out, 1 waiting for a lease, ...". */
    static String summary(LockQueueSnapshot snapshot) {
        if (snapshot.nodes().isEmpty()) {
            return "free (no lock nodes)";
        }
        if (snapshot.isSemaphore()) {
            long out = snapshot.holders();
            long leaseWaiters = snapshot.nodes().stream()
                    .filter(node -> node.part() == LockQueueSnapshot.Part.LEASES && !node.holds())
                    .count();
            long queued = snapshot.nodes().stream()
                    .filter(node -> node.part() == LockQueueSnapshot.Part.MUTEX && !node.holds())
                    .count();
            return "semaphore, " + out + (out == 1 ? " lease out, " : " leases out, ") + leaseWaiters
                    + " waiting for a lease, " + queued + " queued for its mutex";
        }
        long holders = snapshot.holders();
        return holders + (holders == 1 ? " holder, " : " holders, ") + snapshot.waiters() + " waiting";
    }

    /**
     * Returns the data as text: printable ASCII as is, other bytes as {@code \xNN}, cut to {@code max} characters
     * with a trailing {@code ...} when longer.
     */
    static String printable(byte[] data, int max) {
        StringBuilder text = new StringBuilder();
        for (byte b : data) {
            int c = b & 0xff;
            text.append(c >= 0x20 && c < 0x7f && c != '\\' ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return text.length() <= max ? text.toString() : text.substring(0, max - 3) + "...";
    }

    /** Returns a short age: {@code 850ms}, {@code 12.4s}, {@code 3m05s}, {@code 2h03m}, {@code 3d04h}. */
    static String age(long millis) {
        if (millis < 1_000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
        }
        long seconds = millis / 1000;
        if (seconds < 3600) {
            return String.format("%dm%02ds", seconds / 60, seconds % 60);
        }
        if (seconds < 86_400) {
            return String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
        }
        return String.format("%dd%02dh", seconds / 86_400, seconds % 86_400 / 3600);
    }
}
