package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The invariants of ARCHITECTURE.md, checked at every grant, release and end of an acquire of a simulation:
 *
 * <ul>
 *   <li>admission: a hold is granted only while its client is started and connected and its node HELD, and never on a
 *       node its cohort has learned is gone; a local grant of a node a stranger deleted only while the cohort has news
 *       of it on its way (checked by {@link SimCohort});
 *   <li>no two live holds of one path conflict (a reader only with readers; a thread's own read beside its write, a
 *       downgrade, conflicts with nothing; its own write while its read stands, an upgrade, does); a hold is live while
 *       its node stands at the
 *       server (a hold whose node went with its session, or was deleted by a stranger, is lost, not an overlap);
 *   <li>fencing: a live exclusive or write hold's token is larger than every token of its path before it, a live read
 *       hold's not below any exclusive or write one;
 *   <li>every acquire with a deadline ends within it plus one request timeout, and every acquire ends once the faults
 *       stop;
 *   <li>leases: no more stand at once than the semaphore's count;
 *   <li>the cohort's bounds, checked by {@link SimCohort} as it hands grants out: no local grant of a node after its
 *       cohort heard a revocation request, no reader joining with a writer known behind, and, with a conflicting node
 *       known behind, at most the pass bound of passes, within the time bound;
 *   <li>nothing is left behind: once every thread is done, no lock node stands that no idle cohort keeps.
 * </ul>
 *
 * Not thread-safe.
 */
final class SimChecker {
    /** What a hold claims on its path. */
    enum Mode {
        EXCLUSIVE,
        READ,
        WRITE,
        /** A semaphore's lease: leases share their path up to the semaphore's count, and carry no fencing order. */
        LEASE;

        boolean sharesWith(Mode other) {
            return this == other && (this == READ || this == LEASE);
        }
    }

    /** One hold of one path, from its grant to its release. */
    static final class Held {
        final String owner;
        final String path;
        final Mode mode;
        final LockNode node;
        final long token;

        Held(String owner, String path, Mode mode, LockNode node, long token) {
            this.owner = owner;
            this.path = path;
            this.mode = mode;
            this.node = node;
            this.token = token;
        }
    }

    private final SimWorld world;
    private final int maxLeases; // the semaphore's count
    private final Map<String, List<Held>> holds = new HashMap<>();
    private final Map<String, Long> newest = new HashMap<>();
    private final Map<String, Long> newestExclusive = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Set<String> strangerDeleted = new HashSet<>();
    private long granted;
    private long acquires;

    SimChecker(SimWorld world, int maxLeases) {
        this.world = world;
        this.maxLeases = maxLeases;
    }

    List<String> violations() {
        return violations;
    }

    long granted() {
        return granted;
    }

    long acquires() {
        return acquires;
    }

    /**
     * A hold was granted to {@code owner}: checks the admission rule, the overlaps and the token.
     *
     * @param knowsGone whether the granting cohort had learned that the node is gone (null for a node of its own)
     */
    Held granted(String owner, SimClient client, Hold hold, Mode mode, String how, Predicate<LockNode> knowsGone) {
        granted++;
        LockNode node = hold.node();
        String path = node.lockPath();
        if (client.isClosed() || !client.isConnected() || client.stateOf(node) != LockState.HELD) {
            violation(
                    "%s was granted %s (%s) while its client was %s and the node %s",
                    owner, node.name(), how, client.link(), client.stateOf(node));
        }
        if (knowsGone != null && knowsGone.test(node)) {
            violation("%s was granted %s (%s), a node its cohort knew was gone", owner, node.name(), how);
        }

        Held held = new Held(owner, path, mode, node, hold.token());
        if (stands(node)) {
            for (Held other : holds.getOrDefault(path, List.of())) {
                if (stands(other.node) && !mode.sharesWith(other.mode) && !isDowngrade(owner, mode, other)) {
                    violation(
                            "overlap on %s: %s (%s %s) granted while %s (%s %s) holds",
                            path, owner, mode, node.name(), other.owner, other.mode, other.node.name());
                }
            }
            if (mode == Mode.LEASE) {
                long standing = holds.getOrDefault(path, List.of()).stream()
                        .filter(other -> stands(other.node))
                        .count();
                if (standing + 1 > maxLeases) {
                    violation(
                            "leases over the count on %s: %s granted %s while %d stand",
                            path, owner, node.name(), standing);
                }
                holds.computeIfAbsent(path, p -> new ArrayList<>()).add(held);
                return held;
            }
            long floor = mode == Mode.READ ? newestExclusive.getOrDefault(path, 0L) : newest.getOrDefault(path, 0L);
            if (held.token < floor || (mode != Mode.READ && floor != 0 && held.token == floor)) {
                violation("token regression on %s: %s got %d after %d", path, owner, held.token, floor);
            }
            newest.merge(path, held.token, Math::max);
            if (mode != Mode.READ) {
                newestExclusive.merge(path, held.token, Math::max);
            }
        }
        holds.computeIfAbsent(path, p -> new ArrayList<>()).add(held);
        return held;
    }

    /**
     * A downgrade's read hold, granted beside {@code write}: checked as any hold, unless a stranger deleted the write
     * node. Then it is a hold on a deleted node's standing, as a holder never notices its node deleted (a known limit,
     * not an overlap): recorded, not checked.
     */
    Held grantedBeside(String owner, SimClient client, Hold hold, LockNode write) {
        if (strangerDeleted.contains(SimClient.fullPath(write))) {
            granted++;
            world.note(owner + " downgraded beside a node a stranger deleted: not checked");
            Held held = new Held(owner, hold.node().lockPath(), Mode.READ, hold.node(), hold.token());
            return held;
        }
        return granted(owner, client, hold, Mode.READ, "beside its write", null);
    }

    /** A stranger deleted the node at {@code path}. */
    void strangerDeleted(String path) {
        strangerDeleted.add(path);
    }

    void released(Held held) {
        List<Held> of = holds.get(held.path);
        if (of != null) {
            of.remove(held);
        }
    }

    /** An acquire began; {@link #ended} says when it came back. */
    void began() {
        acquires++;
    }

    /** An acquire with {@code deadline} came back now: within its deadline plus one request timeout. */
    void ended(String owner, long deadline) {
        if (deadline != SimAcquisition.FOREVER && world.now() > deadline + world.requestTimeoutMicros + 1_000) {
            violation(
                    "%s came back %d µs after its deadline (a request timeout is %d µs)",
                    owner, world.now() - deadline, world.requestTimeoutMicros);
        }
    }

    void violation(String format, Object... args) {
        String text = String.format("at %.3f ms: ", world.now() / 1000.0) + String.format(format, args);
        if (violations.size() < 20) {
            violations.add(text);
        }
    }

    /** A thread's read hold granted while its own write hold stands: a downgrade, which conflicts with nothing. */
    private static boolean isDowngrade(String owner, Mode mode, Held other) {
        return other.owner.equals(owner) && mode == Mode.READ && other.mode == Mode.WRITE;
    }

    /** Tells whether a stranger deleted {@code node} while its session lives (not whether its client knows). */
    boolean deletedByStranger(LockNode node) {
        return !stands(node)
                && strangerDeleted.contains(SimClient.fullPath(node))
                && world.server.isLive(node.sessionId());
    }

    private boolean stands(LockNode node) {
        SimServer.Node standing = world.server.node(SimClient.fullPath(node));
        return standing != null && standing.czxid == node.czxid();
    }
}
