package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The invariants of ARCHITECTURE.md, checked at every grant, release and end of an acquire of a simulation:
 *
 * <ul>
 *   <li>admission: a hold is granted only while its client is started and connected and its node HELD, and never on a
 *       node its cohort has learned is gone; a local grant of a node a stranger deleted only while the cohort has news
 *       of it on its way ({@link #localGrant});
 *   <li>no two holds of one path inside at once conflict (a reader only with readers; a thread's own read beside its
 *       write, a downgrade, conflicts with nothing; its own write while its read stands, an upgrade, does). A hold is
 *       what a user sees, inside from its grant to its release whatever its node's state; an overlap is explained (a
 *       fault no lock can prevent, counted, not a violation) only when the earlier hold's session ended, or a stranger
 *       deleted its node, after its grant, and the later was granted on a standing node ({@link SimOverlaps});
 *   <li>fencing: an exclusive or write hold granted on a standing node has a token larger than every token of its path
 *       before it, a read hold's not below any exclusive or write one;
 *   <li>every acquire with a deadline ends within it plus one request timeout, and every acquire ends once the faults
 *       stop;
 *   <li>leases: no more stand at once than the semaphore's count;
 *   <li>an acquire never returns a hold with its thread's interrupt flag set (an interrupt as the grant came wins);
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
        String lostAtGrant; // why its node no longer stood at its grant, or null

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
    private final SimOverlaps overlaps;
    private long granted;
    private long acquires;

    SimChecker(SimWorld world, int maxLeases) {
        this.world = world;
        this.maxLeases = maxLeases;
        this.overlaps = new SimOverlaps(world);
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

    /** The explained overlaps, their number and longest, and the first of them. */
    SimOverlaps overlaps() {
        return overlaps;
    }

    /**
     * A hold was granted to {@code owner}: checks the admission rule, the overlaps and the token.
     *
     * @param knowsGone whether the granting cohort had learned that the node is gone (null for a node of its own)
     */
    Held granted(String owner, SimClient client, Hold hold, Mode mode, String how, Predicate<LockNode> knowsGone) {
        return grant(owner, client, hold, mode, how, knowsGone, null);
    }

    private Held grant(
            String owner,
            SimClient client,
            Hold hold,
            Mode mode,
            String how,
            Predicate<LockNode> knowsGone,
            LockNode beside) {
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
        // A grant made on a simulated thread was decided on the news the thread woke with, not on what its client heard
        // while the thread waited for its turn.
        long heard = Thread.currentThread() instanceof SimThread thread ? thread.heardAtResume() : client.heard();
        held.lostAtGrant = overlaps.lostAtGrant(held, how, beside, heard, client::hearsOf);
        return checked(held);
    }

    /** Checks a hold granted against the holds of its path inside now, and its token; records it inside. */
    private Held checked(Held held) {
        List<Held> inside = holds.computeIfAbsent(held.path, p -> new ArrayList<>());
        if (held.lostAtGrant != null) {
            world.tally("granted on a node that no longer stood");
        }
        for (Held other : inside) {
            if (!held.mode.sharesWith(other.mode) && !isDowngrade(held.owner, held.mode, other)) {
                String cause = overlaps.violationCause(held, other);
                String text = String.format(
                        "overlap on %s (%s): %s (%s %s) granted while %s (%s %s) holds",
                        held.path,
                        cause != null ? cause : explanation(held, other),
                        held.owner,
                        held.mode,
                        held.node.name(),
                        other.owner,
                        other.mode,
                        other.node.name());
                overlap(cause, text, held, other);
            }
        }
        if (held.mode == Mode.LEASE && inside.size() + 1 > maxLeases) {
            String cause = overlaps.leaseCause(held, inside, maxLeases);
            overlap(
                    cause,
                    String.format(
                            "leases over the count on %s (%s): %s granted %s while %d are inside",
                            held.path,
                            cause != null ? cause : "ended from outside",
                            held.owner,
                            held.node.name(),
                            inside.size()),
                    held,
                    null);
        }
        if (held.mode != Mode.LEASE && held.lostAtGrant == null && !overlaps.endedFromOutside(held)) {
            checkToken(held); // a node ended from outside before its grant has an older token: fencing refuses it
        }
        inside.add(held);
        return held;
    }

    /** Why an explained overlap of {@code held}, just granted, with {@code other} inside is no violation. */
    private String explanation(Held held, Held other) {
        return overlaps.endedFromOutside(held)
                ? held.owner + ": " + overlaps.whyGone(held) + " before its grant, unheard"
                : other.owner + ": " + overlaps.whyGone(other) + " while it held";
    }

    private void overlap(String cause, String text, Held held, Held other) {
        if (cause != null) {
            violation("%s", text);
        } else {
            overlaps.explained(text, held, other);
        }
    }

    private void checkToken(Held held) {
        String path = held.path;
        long floor = held.mode == Mode.READ ? newestExclusive.getOrDefault(path, 0L) : newest.getOrDefault(path, 0L);
        if (held.token < floor || (held.mode != Mode.READ && floor != 0 && held.token == floor)) {
            violation("token regression on %s: %s got %d after %d", path, held.owner, held.token, floor);
        }
        newest.merge(path, held.token, Math::max);
        if (held.mode != Mode.READ) {
            newestExclusive.merge(path, held.token, Math::max);
        }
    }

    /**
     * A downgrade's read hold, granted beside {@code write}: checked as any hold, its grant lost if the write node it
     * ranks with no longer stood (a stranger deleted it: the holder never noticed, and its read was granted on the
     * standing of a deleted node).
     */
    Held grantedBeside(String owner, SimClient client, Hold hold, LockNode write) {
        return grant(owner, client, hold, Mode.READ, "beside its write", null, write);
    }

    /** A stranger deleted the node at {@code path}. */
    void strangerDeleted(String path) {
        overlaps.strangerDeleted(path);
    }

    void released(Held held) {
        List<Held> of = holds.get(held.path);
        if (of != null) {
            of.remove(held);
        }
        overlaps.released(held);
    }

    /** An acquire began; {@link #ended} says when it came back. */
    void began() {
        acquires++;
    }

    /** An acquire with {@code deadline} came back now: within its deadline plus one request timeout. */
    void ended(String owner, long deadline) {
        if (deadline != SimWorld.FOREVER && world.now() > deadline + world.requestTimeoutMicros + 1_000) {
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
    /**
     * A cohort's local grant of {@code node} (a pass, a join, an idle node taken) to {@code owner}: if a stranger
     * deleted it, a watch the cohort set with a read that found the node must have fired with the delete, its event
     * still on its way (ZooKeeper hands an event over before any later reply). A grant with none went on a node nothing
     * vouched for: it might never hear that the node is gone, and hold beside whoever got the lock next.
     */
    void localGrant(String owner, SimClient client, LockNode node) {
        if (deletedByStranger(node) && !client.hearsOf(SimClient.fullPath(node)) && !client.hearsOf(node.lockPath())) {
            violation(
                    "%s was granted %s locally, which a stranger deleted, with no watch event of it on its way",
                    owner, node.name());
        }
    }

    boolean deletedByStranger(LockNode node) {
        return !overlaps.stands(node)
                && overlaps.isStrangerDeleted(SimClient.fullPath(node))
                && world.server.isLive(node.sessionId());
    }
}
