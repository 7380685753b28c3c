package dev.zklock.recipes.locks.engine;

import org.apache.zookeeper.Watcher;

/**
 * What a cohort's {@link LocalQueue} asks its runner ({@link Cohort}) to do. Immutable values.
 */
public sealed interface LocalCommand {
    /** Wake {@code waiter}'s thread: it was granted the node, made leader, or must look again. */
    record Wake(LocalWaiter waiter) implements LocalCommand {}

    /**
     * Pass the hold of {@code node} with {@code pass} to the first thread queued at the cohort's gate ({@link PassGate});
     * the releaser holds it still if none is.
     */
    record PassAtGate(LockNode node, int pass) implements LocalCommand {}

    /**
     * Let the next thread queued at the cohort's gate through ({@link PassGate}): the node the gate's holder holds was
     * let go while held (lost, or deleted), so the threads behind it lead to a new one, as a machine's waiters would.
     */
    record OpenGate() implements LocalCommand {}

    /** List the lock path with a child watch for {@code node}: one request. */
    record List(LockNode node) implements LocalCommand {}

    /**
     * Watch {@code node} itself for its deletion (a data read with a watch: one request, and one more after each change
     * of its data, such as a revocation request); tell {@link LocalEvent.NodeWatched} once set,
     * {@link LocalEvent.NodeWatchFailed} if it cannot be, and {@link LocalEvent.NodeDeleted} when the node goes.
     */
    record WatchNode(LockNode node) implements LocalCommand {}

    /** Remove {@code watcher}, a child watch set by a listing that came back after the cohort left its node. */
    record StopWatching(Watcher watcher) implements LocalCommand {}

    /** End the cohort's hold of {@code node}: stop tracking it and delete it (one request). */
    record End(LockNode node) implements LocalCommand {}

    /** Keep {@code node}, idle, for {@code nanos}; then tell {@link LocalEvent.IdleExpired}. */
    record KeepIdle(LockNode node, long nanos) implements LocalCommand {}

    /** The idle time kept is over: cancel its timer. */
    record CancelIdle() implements LocalCommand {}

    /** {@code node} is known gone: make its holds LOST with the client's tracker. */
    record Lose(LockNode node) implements LocalCommand {}
}
