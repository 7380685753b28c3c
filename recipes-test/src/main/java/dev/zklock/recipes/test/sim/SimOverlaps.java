package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.LockNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The overlaps of a simulation: two conflicting holds of one path inside at once (from grant to release, whatever their
 * nodes' state), or leases beyond the count, each classified by its cause. Explained when the earlier hold was ended
 * from outside after its grant (its session ended, or a stranger deleted its node, while it was inside) and the new one
 * was granted on a standing node of a live session; or when the new one was granted on news from before its own node
 * was ended from outside, the news of that end still on its way to its client (its older token is then refused by any
 * fenced resource). A violation otherwise: both live, or a hold granted on a node its client knew no longer stood (a
 * stranger's delete before the grant, a session already ended). Explained overlaps are timed from the later grant until
 * either hold is released. Not thread-safe.
 */
final class SimOverlaps {
    private static final int FIRST = 20;

    /** An explained overlap under way; {@code other} is null for leases beyond the count. */
    private record Open(SimChecker.Held entering, SimChecker.Held other, long startMicros) {}

    private final SimWorld world;
    private final List<Open> open = new ArrayList<>();
    private final List<String> firstExplained = new ArrayList<>();
    private final Map<String, Long> strangerDeleted = new HashMap<>(); // a node's path, and when it was deleted
    private long explained;
    private long longestMicros;

    SimOverlaps(SimWorld world) {
        this.world = world;
    }

    /**
     * Returns why {@code held} was lost at its grant (its node no longer stood: deleted by a stranger, or gone with its
     * ended session; or, for a downgrade's read, the write node {@code beside} it no longer stood), or null. A delete
     * whose watch event is still on its way to the client ({@code onItsWay}) is unheard, whatever the client heard
     * after it: the simulated client may hand over the reply of a request applied after the delete first.
     */
    String lostAtGrant(SimChecker.Held held, String how, LockNode beside, long heard, Predicate<String> onItsWay) {
        if (!stands(held) && !deletedUnheard(held.node, heard) && !onItsWay.test(SimClient.fullPath(held.node))) {
            return held.owner + " was granted " + held.node.name() + " (" + how + "), which no longer stood: "
                    + whyGone(held);
        }
        if (beside != null && !stands(beside) && !deletedUnheard(beside, heard)) {
            SimChecker.Held write = new SimChecker.Held(held.owner, held.path, SimChecker.Mode.WRITE, beside, 0);
            return held.owner + " was granted " + held.node.name() + " beside its write node " + beside.name()
                    + ", which no longer stood: " + whyGone(write);
        }
        return null;
    }

    /**
     * Returns why the overlap of {@code entering} with {@code other}, a hold inside, is a violation, or null if it is
     * explained.
     */
    String violationCause(SimChecker.Held entering, SimChecker.Held other) {
        if (entering.lostAtGrant != null) {
            return entering.lostAtGrant;
        }
        if (other.lostAtGrant != null) {
            return other.lostAtGrant;
        }
        if (endedFromOutside(entering)) {
            return null; // granted on news from before a stranger's delete or its session's end, which it had not heard
        }
        if (stands(other)) {
            return "both live";
        }
        return endedFromOutside(other) ? null : other.owner + " held on: " + whyGone(other);
    }

    /**
     * Returns why leases beyond the count with {@code entering} are a violation, or null if they are explained: the
     * entering lease was lost at its grant, or the leases inside not ended from outside fill the count.
     */
    String leaseCause(SimChecker.Held entering, List<SimChecker.Held> inside, int maxLeases) {
        if (entering.lostAtGrant != null) {
            return entering.lostAtGrant;
        }
        long live = inside.stream()
                .filter(lease -> lease.lostAtGrant != null || !endedFromOutside(lease))
                .count();
        return live + 1 > maxLeases ? live + " live leases beside it" : null;
    }

    /** Counts an explained overlap, open until either hold is released. */
    void explained(String text, SimChecker.Held entering, SimChecker.Held other) {
        explained++;
        open.add(new Open(entering, other, world.now()));
        if (firstExplained.size() < FIRST) {
            firstExplained.add(String.format("at %.3f ms: ", world.now() / 1000.0) + text);
        }
    }

    /** Ends the explained overlaps {@code held} takes part in. */
    void released(SimChecker.Held held) {
        open.removeIf(overlap -> {
            if (overlap.entering == held || overlap.other == held) {
                longestMicros = Math.max(longestMicros, world.now() - overlap.startMicros);
                return true;
            }
            return false;
        });
    }

    long explained() {
        return explained;
    }

    /** The longest explained overlap, in simulated µs, those still under way counted until now. */
    long longestMicros() {
        long longest = longestMicros;
        for (Open overlap : open) {
            longest = Math.max(longest, world.now() - overlap.startMicros);
        }
        return longest;
    }

    List<String> firstExplained() {
        return List.copyOf(firstExplained);
    }

    /** A stranger deleted the node at {@code path}, now. */
    void strangerDeleted(String path) {
        strangerDeleted.put(path, world.now());
    }

    /** Tells whether a stranger deleted the node at {@code path}. */
    boolean isStrangerDeleted(String path) {
        return strangerDeleted.containsKey(path);
    }

    /**
     * Tells whether a stranger deleted {@code node} after everything its client had heard of when it granted: the grant
     * was decided on a state in which the node stood, and the delete was on its way to the client (one session's news
     * comes in the server's order), as for a node deleted under a holder. A grant on news that came after the delete
     * (the news ahead of a waiter whose own node had gone) is no such race.
     */
    private boolean deletedUnheard(LockNode node, long heard) {
        Long deletedAt = strangerDeleted.get(SimClient.fullPath(node));
        return deletedAt != null && deletedAt > heard;
    }

    /** Says why the hold's node no longer stands. */
    String whyGone(SimChecker.Held held) {
        if (strangerDeleted.containsKey(SimClient.fullPath(held.node))) {
            return "a stranger deleted its node";
        }
        return world.server.isLive(held.node.sessionId()) ? "its node went, its session alive" : "its session ended";
    }

    /** Tells whether the hold's node went by a stranger's delete or with its session's end. */
    boolean endedFromOutside(SimChecker.Held held) {
        return !stands(held)
                && (strangerDeleted.containsKey(SimClient.fullPath(held.node))
                        || !world.server.isLive(held.node.sessionId()));
    }

    boolean stands(SimChecker.Held held) {
        return stands(held.node);
    }

    boolean stands(LockNode node) {
        SimServer.Node standing = world.server.node(SimClient.fullPath(node));
        return standing != null && standing.czxid == node.czxid();
    }
}
