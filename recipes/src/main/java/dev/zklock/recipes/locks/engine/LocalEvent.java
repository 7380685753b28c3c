package dev.zklock.recipes.locks.engine;

import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;

/**
 * What happens to a cohort's {@link LocalQueue}: the calls of local threads, the outcome of a leader's acquisition, the
 * news of the child watch, the node's state, the idle timer and revocation, in one place. Times are
 * {@link System#nanoTime()} readings taken by the runner, so that the machine reads no clock. Immutable values.
 */
public sealed interface LocalEvent {
    /**
     * A local thread asks for a hold; it waits as {@code waiter} unless granted at once. Only a shared queue reads
     * {@code now} (its joins' window), and its runner reads the clock for no other.
     */
    record Acquire(LocalWaiter waiter, long now) implements LocalEvent {}

    /**
     * A local holder ends its hold of {@code node}, the hold after {@code pass} others; {@code now} is read only while
     * the machine reads it ({@link LocalQueue#readsReleaseTime()}), else zero. {@code queued}: threads wait at the
     * cohort's gate ({@link PassGate}), which the machine may pass the node to ({@link LocalCommand.PassAtGate}).
     */
    record Release(LockNode node, long now, int pass, boolean queued) implements LocalEvent {
        /** A release of a hold whose pass does not matter, with nobody queued at a gate. */
        public Release(LockNode node, long now) {
            this(node, now, 0, false);
        }
    }

    /** Threads queue at the cohort's gate ({@link PassGate}) behind the thread that has it. */
    record Queued() implements LocalEvent {}

    /** A waiting thread gives up: its deadline passed, or it was {@code interrupted}. */
    record GiveUp(LocalWaiter waiter, boolean interrupted) implements LocalEvent {}

    /** The leader's acquisition took {@code node} for the cohort, admitted; the leader holds it. */
    record NodeTaken(LocalWaiter leader, LockNode node, long now) implements LocalEvent {}

    /** The leader's acquisition ended without a node (deadline, interrupt, error). */
    record LeadEnded(LocalWaiter leader) implements LocalEvent {}

    /** A thread granted {@code node} found it LOST when it asked {@link Admission}: it waits again. */
    record GrantLost(LocalWaiter waiter, LockNode node) implements LocalEvent {}

    /** The children of the lock path changed: the child watch set for {@code node} fired. */
    record ChildrenChanged(LockNode node) implements LocalEvent {}

    /** A listing of the lock path, sent for {@code node} with {@code watcher} as its child watch. */
    record Listed(LockNode node, List<String> children, Watcher watcher, long now) implements LocalEvent {}

    /** The listing sent for {@code node} failed with {@code code}, or could not be sent; no watch is set. */
    record ListingFailed(LockNode node, Code code, long now) implements LocalEvent {}

    /** The client's tracker made {@code node}'s holds LOST (its session ended, or the client closed). */
    record NodeLost(LockNode node) implements LocalEvent {}

    /** The data watch on {@code node} itself fired NodeDeleted, or its read found no node: our node is gone. */
    record NodeDeleted(LockNode node) implements LocalEvent {}

    /** The data watch on {@code node} itself is set: its read found the node, and its delete will be told. */
    record NodeWatched(LockNode node, long now) implements LocalEvent {}

    /** The data watch on {@code node} itself could not be set (no connection on its session, or the read failed). */
    record NodeWatchFailed(LockNode node, long now) implements LocalEvent {}

    /** The client's tracker made {@code node}'s holds HELD again after a reconnect. */
    record Resumed(LockNode node) implements LocalEvent {}

    /** The idle time of {@code node}, kept after its last release, ran out. */
    record IdleExpired(LockNode node) implements LocalEvent {}

    /** Someone asked the holders of {@code node} to let go (Curator's revocation protocol). */
    record Revoked(LockNode node) implements LocalEvent {}

    /**
     * A thread that holds {@code node} (a write node) took, or ended, a read node beside it (a downgrade): {@code delta}
     * +1 or -1.
     */
    record Beside(LockNode node, int delta) implements LocalEvent {}
}
