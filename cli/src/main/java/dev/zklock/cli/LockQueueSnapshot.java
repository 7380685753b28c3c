package dev.zklock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A lock's queue as one listing saw it: its lock nodes in queue order, each with its kind, whether it holds the lock,
 * its session, creation time and data. Immutable.
 *
 * <p>Who holds is decided as Curator's recipes decide, by sequence number: an exclusive or write node holds when no
 * other lock node has a smaller sequence (it is first); a read node holds when no exclusive or write node has a smaller
 * sequence (readers before the first writer). A read node that Curator's read/write lock creates when a write holder
 * downgrades carries the writer's own sequence number, so it holds beside its writer, as it does in Curator.
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
     * @param name the node name
     * @param kind exclusive, read or write
     * @param holds whether it holds the lock
     * @param sessionId the session that owns it (its {@code ephemeralOwner}); 0 if it is not ephemeral
     * @param createdMillis its creation time on the server ({@code ctime})
     * @param data its data
     */
    record Node(
            int position,
            String name,
            LockNodeKind kind,
            boolean holds,
            long sessionId,
            long createdMillis,
            byte[] data) {

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
     */
    static LockQueueSnapshot of(String path, List<Read> sorted, int otherChildren, long now) {
        long firstAny = Long.MAX_VALUE;
        long firstExclusive = Long.MAX_VALUE;
        for (Read read : sorted) {
            boolean exclusive = kindOf(read).isExclusive();
            long sequence = sequenceOf(read.name());
            firstAny = Math.min(firstAny, sequence);
            if (exclusive) {
                firstExclusive = Math.min(firstExclusive, sequence);
            }
        }
        List<Node> nodes = new ArrayList<>();
        for (Read read : sorted) {
            LockNodeKind kind = kindOf(read);
            long sequence = sequenceOf(read.name());
            boolean holds = kind.isExclusive() ? sequence <= firstAny : sequence <= firstExclusive;
            nodes.add(new Node(
                    nodes.size() + 1, read.name(), kind, holds, read.sessionId(), read.createdMillis(), read.data()));
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

    private static LockNodeKind kindOf(Read read) {
        Optional<LockNodeKind> kind = LockNodeKind.of(read.name());
        return kind.orElseThrow(() -> new IllegalArgumentException("not a lock node: '" + read.name() + "'"));
    }

    private static long sequenceOf(String name) {
        String digits = LockNodeKind.sequence(name);
        return digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits);
    }
}
