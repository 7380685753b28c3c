package dev.zklock.cli;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockNodeName;
import dev.zklock.recipes.locks.LockQueueView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lock's queue as one listing saw it: its lock nodes in queue order, each with its kind, whether it holds the lock,
 * its session, creation time and data. Immutable.
 *
 * <p>Who holds is decided by the library, as its locks decide it: each node's name is read with {@link LockNodeName},
 * and the built-in driver of its kind ({@link LockNodeName#driver()}) is asked about it, over the queue sorted in that
 * driver's order. So an exclusive or write node holds when it is first, and a read node holds when no write node is
 * ranked before it. A read node that a read/write lock creates when a write holder downgrades carries the writer's
 * own sequence number ({@link LockNodeName#isDowngradeOf(LockNodeName)}); no driver decides it, because zklock and
 * Curator grant it at once, so it is left out of the queue the drivers see and holds exactly when its writer does.
 *
 * @param path the lock path
 * @param nodes the lock nodes, in queue order
 * @param otherChildren the number of children that are not lock nodes (not shown, never holders)
 * @param takenAtMillis when the listing was made, in milliseconds since the epoch (this machine's clock)
 */
record LockQueueSnapshot(String path, List<Node> nodes, int otherChildren, long takenAtMillis) {

    /**
     * One lock node.
     *
     * @param position its place in the queue, 1 for the first
     * @param node its name, as the library reads it
     * @param holds whether it holds the lock
     * @param sessionId the session that owns it (its {@code ephemeralOwner}); 0 if it is not ephemeral
     * @param createdMillis its creation time on the server ({@code ctime})
     * @param data its data
     */
    record Node(int position, LockNodeName node, boolean holds, long sessionId, long createdMillis, byte[] data) {

        /** Returns the node name. */
        String name() {
            return node.name();
        }

        /** Returns the kind shown for the node: read, write, or exclusive for a node of any other lock name. */
        String kind() {
            return node.isRead() ? "read" : node.isWrite() ? "write" : "exclusive";
        }

        /** Returns the session id in hex, as ZooKeeper's logs show it: {@code 0x1000a2b3c4d0001}. */
        String session() {
            return "0x" + Long.toHexString(sessionId);
        }

        /** Returns the node's age at the time of the listing, never negative (the clocks of server and client). */
        long ageMillis(long now) {
            return Math.max(0, now - createdMillis);
        }
    }

    /**
     * A lock node as read from ZooKeeper, before the holders are decided.
     *
     * @param name the node name
     * @param sessionId its {@code ephemeralOwner}
     * @param createdMillis its {@code ctime}
     * @param data its data
     */
    record Read(String name, long sessionId, long createdMillis, byte[] data) {}

    /**
     * Decides the holders of a queue.
     *
     * @param path the lock path
     * @param sorted the lock nodes in queue order ({@code LockDriver.exclusive().sort(...)}), non-lock children left out
     * @param otherChildren how many children were left out
     * @param now the time of the listing
     * @throws IllegalArgumentException if a node's name is not a lock node's
     */
    static LockQueueSnapshot of(String path, List<Read> sorted, int otherChildren, long now) {
        List<LockNodeName> names =
                sorted.stream().map(LockQueueSnapshot::nameOf).toList();
        List<LockNodeName> decidedBy = decidedBy(names);
        List<String> decided = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (decidedBy.get(i).equals(names.get(i))) {
                decided.add(names.get(i).name());
            }
        }
        Map<LockDriver, List<String>> orders = new HashMap<>();
        Map<LockNodeName, Boolean> holds = new HashMap<>();
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            boolean holder = holds.computeIfAbsent(decidedBy.get(i), name -> {
                LockDriver driver = name.driver();
                List<String> order = orders.computeIfAbsent(driver, d -> List.copyOf(d.sort(decided)));
                return driver.decide(LockQueueView.of(path, order, name.name())).holdsLock();
            });
            Read read = sorted.get(i);
            nodes.add(new Node(i + 1, names.get(i), holder, read.sessionId(), read.createdMillis(), read.data()));
        }
        return new LockQueueSnapshot(path, List.copyOf(nodes), otherChildren, now);
    }

    /** Returns the number of nodes that hold the lock. */
    long holders() {
        return nodes.stream().filter(Node::holds).count();
    }

    /** Returns the number of nodes that wait. */
    long waiters() {
        return nodes.size() - holders();
    }

    private static LockNodeName nameOf(Read read) {
        return LockNodeName.parse(read.name())
                .orElseThrow(() -> new IllegalArgumentException("not a lock node: '" + read.name() + "'"));
    }

    /** Returns, for each node, the node whose decision it takes: its writer for a downgrade's read node, else itself. */
    private static List<LockNodeName> decidedBy(List<LockNodeName> names) {
        Map<String, LockNodeName> writers = new HashMap<>();
        for (LockNodeName name : names) {
            if (name.isWrite()) {
                writers.putIfAbsent(name.sequence(), name);
            }
        }
        List<LockNodeName> decidedBy = new ArrayList<>();
        for (LockNodeName name : names) {
            LockNodeName writer = writers.get(name.sequence());
            decidedBy.add(writer != null && name.isDowngradeOf(writer) ? writer : name);
        }
        return decidedBy;
    }
}
