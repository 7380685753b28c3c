package dev.zklock.recipes.locks.engine;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;

/**
 * The local threads of a cohort that wait for its node, in FIFO order, and the leader, the one that takes a node for
 * the cohort when it has none. A waiter that was granted and found its grant lost goes back to the front; a leader
 * that ends with no node hands the lead on to the first. Part of the {@link LocalQueue} machine: no I/O (its runner
 * carries out the {@link LocalCommand.Wake}s), no clock, no ZooKeeper round trip. Not thread-safe: confined, as its
 * queue is, by the {@link Cohort} runner's JVM lock.
 */
final class LocalWaiters {
    private final ArrayDeque<LocalWaiter> waiting = new ArrayDeque<>();
    private LocalWaiter leader; // takes a node for the cohort; null when none does

    /** Whether no thread waits (a leader does not count). */
    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** Whether a leader takes a node for the cohort. */
    boolean hasLeader() {
        return leader != null;
    }

    /** The threads that wait, a leader among them, for monitoring. */
    int count() {
        return waiting.size() + (leader != null ? 1 : 0);
    }

    /** The threads that wait, first first (not the leader). */
    Collection<LocalWaiter> waiting() {
        return waiting;
    }

    /** {@code waiter} waits behind the others. */
    void addLast(LocalWaiter waiter) {
        waiting.addLast(waiter);
    }

    /** {@code waiter}, whose grant was lost, waits again in its place: first. */
    void addFirst(LocalWaiter waiter) {
        waiting.addFirst(waiter);
    }

    /** Removes the first waiter to grant it. */
    LocalWaiter pollFirst() {
        return waiting.pollFirst();
    }

    /** {@code waiter} leaves the queue; returns whether it waited in it. */
    boolean remove(LocalWaiter waiter) {
        return waiting.remove(waiter);
    }

    /** When the cohort has no node and nobody leads, the first waiter leads and is woken to take one. */
    void leadNext(boolean hasNode, List<LocalCommand> out) {
        if (leader != null || hasNode || waiting.isEmpty()) {
            return;
        }
        leader = waiting.pollFirst();
        leader.lead();
        out.add(new LocalCommand.Wake(leader));
    }

    /** The leader {@code taker} took {@code taken}: nobody leads now. */
    void taken(LocalWaiter taker, LockNode taken) {
        if (taker != leader) {
            throw new AssertionError("node " + taken + " taken by " + taker + ", but the leader is " + leader);
        }
        leader = null;
    }

    /** {@code ended} gave up its lead, or was never the leader. */
    void leadEnded(LocalWaiter ended) {
        if (ended == leader) {
            leader = null;
        }
    }
}
