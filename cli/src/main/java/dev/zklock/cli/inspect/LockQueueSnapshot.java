package dev.zklock.cli.inspect;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockNodeName;
import dev.zklock.recipes.locks.LockQueueView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A lock's queue as one listing saw it: its lock nodes in queue order, each with its kind, whether it holds the lock,
 * its session, creation time and data; or a semaphore's leases and the queue of its internal mutex. Immutable.
 *
 * <p>Who holds is decided by the library, as its locks decide it: each node's name is read with {@link LockNodeName},
 * and the built-in driver of its kind ({@link LockNodeName#driver()}) is asked about it, over the queue sorted in that
 * driver's order. So an exclusive or write node holds when it is first, and a read node holds when no write node is
 * ranked before it. A read node that a read/write lock creates when a write holder downgrades carries the writer's
 * own sequence number ({@link LockNodeName#isDowngradeOf(LockNodeName)}); no driver decides it, because zklock and
 * Curator grant it at once, so it is left out of the queue the drivers see and holds exactly when its writer does.
 *
 * <p>A semaphore in Curator's {@code InterProcessSemaphoreV2} layout, zklock's {@code ZkSemaphore} and semaphore mutex
 * included, keeps its leases under {@code <path>/leases} and queues for its internal mutex under {@code <path>/locks}.
 * Its lease count is each client's setting, not stored in ZooKeeper; what the nodes tell: the first mutex node's
 * session is taking a lease, so a lease it made after that mutex node waits for a lease to be returned (or has just
 * got one), and every other lease is out; the other mutex nodes wait their turn.
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
    record Node(
            int position,
            LockNodeName node,
            boolean holds,
            long sessionId,
            long createdMillis,
            byte[] data,
            Part part) {

        /** A node of a lock's queue. */
        Node(int position, LockNodeName node, boolean holds, long sessionId, long createdMillis, byte[] data) {
            this(position, node, holds, sessionId, createdMillis, data, Part.QUEUE);
        }

        /** Returns the node name, under its parent ({@code leases/} or {@code locks/}) for a semaphore's nodes. */
        String name() {
            return switch (part) {
                case QUEUE -> node.name();
                case LEASES -> SEMAPHORE_LEASES + "/" + node.name();
                case MUTEX -> SEMAPHORE_LOCKS + "/" + node.name();
            };
        }

        /**
         * Returns the kind shown for the node: read, write, or exclusive for a node of any other lock name; lease or
         * mutex for a semaphore's.
         */
        String kind() {
            return switch (part) {
                case QUEUE -> node.isRead() ? "read" : node.isWrite() ? "write" : "exclusive";
                case LEASES -> "lease";
                case MUTEX -> "mutex";
            };
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

    /** Where a node lives: a lock's queue, or a semaphore's leases or mutex queue. */
    enum Part {
        QUEUE,
        LEASES,
        MUTEX
    }

    /** The children of a semaphore's path: its mutex queue and its leases, as Curator names them. */
    static final String SEMAPHORE_LOCKS = "locks";

    static final String SEMAPHORE_LEASES = "leases";

    /**
     * A lock node as read from ZooKeeper, before the holders are decided.
     *
     * @param name the node name
     * @param sessionId its {@code ephemeralOwner}
     * @param createdMillis its {@code ctime}
     * @param data its data
     * @param czxid its creation zxid
     */
    record Read(String name, long sessionId, long createdMillis, byte[] data, long czxid) {
        /** A node whose creation zxid does not matter. */
        Read(String name, long sessionId, long createdMillis, byte[] data) {
            this(name, sessionId, createdMillis, data, 0);
        }
    }

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

    /**
     * Decides a semaphore's nodes: its leases (in sequence order, each out but a lease the mutex's holder made while
     * holding it), then its mutex queue (the first holds the mutex, the others wait).
     *
     * @param path the semaphore's path
     * @param leases the lease nodes, sorted by sequence
     * @param mutex the mutex nodes, sorted by sequence
     * @param otherChildren how many children of the three paths were left out
     * @param now the time of the listing
     * @throws IllegalArgumentException if a node's name is not a lock node's
     */
    static LockQueueSnapshot ofSemaphore(
            String path, List<Read> leases, List<Read> mutex, int otherChildren, long now) {
        Read taking = mutex.isEmpty() ? null : mutex.get(0);
        List<Node> nodes = new ArrayList<>();
        for (Read lease : leases) {
            boolean waits = taking != null && lease.sessionId() == taking.sessionId() && lease.czxid() > taking.czxid();
            nodes.add(node(nodes.size() + 1, lease, !waits, Part.LEASES));
        }
        for (Read queued : mutex) {
            nodes.add(node(nodes.size() + 1, queued, queued == taking, Part.MUTEX));
        }
        return new LockQueueSnapshot(path, List.copyOf(nodes), otherChildren, now);
    }

    private static Node node(int position, Read read, boolean holds, Part part) {
        return new Node(position, nameOf(read), holds, read.sessionId(), read.createdMillis(), read.data(), part);
    }

    /** Tells whether this is a semaphore's snapshot: its leases and its mutex queue. */
    boolean isSemaphore() {
        return nodes.stream().anyMatch(node -> node.part() != Part.QUEUE);
    }

    /** Returns the number of nodes that hold the lock; for a semaphore, the leases out. */
    long holders() {
        return nodes.stream()
                .filter(node -> node.holds() && node.part() != Part.MUTEX)
                .count();
    }

    /** Returns the number of nodes that wait; for a semaphore, a lease not yet out and the mutex's queue. */
    long waiters() {
        return nodes.stream().filter(node -> !node.holds()).count();
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
