package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The read admission of a shared cohort: which local readers join its read node with no request, and when. Joins are
 * open while the last listing found no writer behind the node, for at most maxTime after it; the founders, the readers
 * that waited as the node was taken, join on the first listing that finds the node. It grants the joins on the
 * cohort's node ({@link CohortNode}), within its bounds ({@link HandOffBounds}), taking the readers from its
 * {@link LocalWaiters}. Part of the shared {@link LocalQueue} machine: no I/O (its runner carries out the
 * {@link LocalCommand.Wake}s), no clock (the machine is told the time), no ZooKeeper round trip. Not thread-safe:
 * confined, as its queue is, by the {@link Cohort} runner's JVM lock.
 */
final class ReadJoins {
    /*
     * Shared joins need a fresh listing: a reader joins with no request only while the last listing found no writer
     * behind the node, for at most maxTime after it; then one listing, which new readers wait for (CohortLockTest). The
     * readers that waited as the node was taken join it on the first listing that finds it, a writer behind or not:
     * they were there before that writer (LocalQueueTest).
     */

    private final long maxTimeNanos;
    private final CohortNode ours;
    private final LocalWaiters waiters;
    private final HandOffBounds bounds;
    private final List<LocalWaiter> founders = new ArrayList<>(); // waited for the node as it was taken
    private boolean joinable; // the last listing found no writer behind the node
    private long joinableSince;

    ReadJoins(CohortSettings settings, CohortNode ours, LocalWaiters waiters, HandOffBounds bounds) {
        this.maxTimeNanos = settings.maxTimeNanos();
        this.ours = ours;
        this.waiters = waiters;
        this.bounds = bounds;
    }

    /** The node was taken: the readers waiting now rank with it, ahead of any writer that queues behind it. */
    void founded() {
        founders.addAll(waiters.waiting());
    }

    /**
     * A listing found the node: the founders still waiting join it, whatever queued behind it since (they were there
     * first), while the node may grant.
     */
    void letFoundersIn(List<LocalCommand> out) {
        if (founders.isEmpty()) {
            return;
        }
        boolean granted = false;
        for (LocalWaiter founder : founders) {
            if (bounds.mayGrantMore() && waiters.remove(founder)) {
                ours.grantAndWake(founder, bounds.nextPass(), out);
                granted = true;
            }
        }
        founders.clear();
        if (granted) {
            ours.cancelIdle(out);
        }
    }

    /**
     * A listing at {@code now} found no writer behind the node: joins open for maxTime, and the waiting readers join.
     *
     * @return false, with joins left as they were, if the node may grant no more (asked to let go)
     */
    boolean letWaitersIn(long now, List<LocalCommand> out) {
        if (!bounds.mayGrantMore()) {
            return false;
        }
        joinable = true;
        joinableSince = now;
        boolean granted = false;
        while (!waiters.isEmpty() && bounds.mayGrantMore()) {
            ours.grantAndWake(waiters.pollFirst(), bounds.nextPass(), out);
            granted = true;
        }
        if (granted) {
            ours.cancelIdle(out);
        }
        return true;
    }

    /**
     * An acquire at {@code now}: joins close once maxTime has passed since the listing that opened them, while the node
     * is held.
     *
     * @return whether they closed now: the caller lists, and new readers wait for its answer
     */
    boolean closeIfExpired(long now) {
        if (joinable && ours.holders() > 0 && now - joinableSince >= maxTimeNanos) {
            joinable = false;
            return true;
        }
        return false;
    }

    /** Readers wait for the next listing. */
    void close() {
        joinable = false;
    }

    /** Whether readers may join now with no request, as far as the last listing tells. */
    boolean isOpen() {
        return joinable;
    }

    /** Forgets the node: joins closed, no founders. */
    void clear() {
        founders.clear();
        joinable = false;
    }
}
