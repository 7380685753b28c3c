package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * One acquisition as a value: what {@code hold()} and {@code acquireAsync()} return. Closing it releases the lock,
 * so a hold fits try-with-resources:
 *
 * <pre>{@code
 * try (LockHold hold = lock.hold(Duration.ofSeconds(5))) {   // LockTimeoutException if not acquired in time
 *     store.write(order, hold.fencingToken());
 * }
 * }</pre>
 *
 * <p>A hold from {@code hold()} is released through its lock, so for a lock owned per thread it must be closed by
 * the thread that took it. A hold from {@code acquireAsync} belongs to the hold itself: any thread may close it.
 * Closing is idempotent: the first {@link #close()} releases, later ones do nothing. Safe for use by multiple threads.
 * Closing costs what the lock's release costs (one delete, or one transaction for a multi-lock).
 *
 * @since 0.1.0
 */
public final class LockHold implements AutoCloseable {
    private final String lockName;
    private final Map<String, Long> tokens;
    private final Supplier<LockState> state;
    private final Runnable release;
    private final BooleanSupplier expire; // null: a hold of several nodes, which is closed, not expired
    private final String node; // null: a hold of several nodes
    private final AtomicBoolean closed = new AtomicBoolean();

    LockHold(
            String lockName,
            Map<String, Long> tokens,
            Supplier<LockState> state,
            Runnable release,
            BooleanSupplier expire,
            String node) {
        this.lockName = lockName;
        this.tokens = Map.copyOf(tokens);
        this.state = state;
        this.release = release;
        this.expire = expire;
        this.node = node;
    }

    /**
     * Returns the full path of the node this hold stands on, as {@code getLockPath()} names it to a thread's holder:
     * for a node's data a holder keeps there (a time to live, say), or for logs. No ZooKeeper call.
     *
     * @return the node's path, relative to the client's namespace; empty for a multi-lock's hold, which stands on
     *     several nodes
     */
    public Optional<String> node() {
        return Optional.ofNullable(node);
    }

    /**
     * Returns the fencing token of this hold ({@link FencingToken}): larger than the token of every earlier exclusive or
     * write hold of the path; readers are only never below an earlier writer, and the readers that join one read node
     * of a cohort share its token. For a multi-lock over paths, one transaction made every node, so this is the token
     * of each path.
     *
     * @return the token
     * @throws IllegalStateException if the hold spans locks with different tokens (a multi-lock over locks): use
     *     {@link #fencingTokens()}
     */
    public long fencingToken() {
        Checks.requireState(
                tokens.values().stream().distinct().count() == 1,
                "hold of %s has several fencing tokens: %s",
                lockName,
                tokens);
        return tokens.values().iterator().next();
    }

    /**
     * Returns the fencing token of each lock path this hold covers.
     *
     * @return tokens by lock path
     */
    public Map<String, Long> fencingTokens() {
        return tokens;
    }

    /**
     * Returns the state of this hold: HELD, IN_DOUBT while the connection is suspended, LOST once the session ended.
     * No ZooKeeper call.
     *
     * @return the current state
     */
    public LockState state() {
        return state.get();
    }

    /**
     * Tells whether this hold was closed.
     *
     * @return {@code true} after the first {@link #close()}
     */
    public boolean isReleased() {
        return closed.get();
    }

    /**
     * Releases the lock, the first time; does nothing after that.
     *
     * @throws IllegalMonitorStateException if the hold came from {@code hold()} on a lock owned per thread and another
     *     thread closes it
     * @throws ZkLockException if ZooKeeper refuses the delete
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                release.run();
            } catch (IllegalMonitorStateException notTheOwner) {
                closed.set(false); // nothing was released: the owning thread may still close it
                throw notTheOwner;
            }
        }
    }

    /**
     * Ends this hold from any thread, as {@link AbstractZkLock#expire(String)} ends the hold on its node: what a time
     * to live kept by the holder's own timer does. The hold is {@linkplain LockState#LOST LOST} before this method
     * returns (the lock's listeners hear it on the calling thread), then its node is deleted, which lets the next
     * waiter in; a later {@link #close()} only clears the holder's record. With local hand-off, every local holder of
     * that node loses it. Cost: one delete, sent without waiting.
     *
     * @return true if the hold was ended; false if it was released or lost before
     * @throws UnsupportedOperationException for a multi-lock's hold, which stands on several nodes: close it
     */
    public boolean expire() {
        if (expire == null) {
            throw new UnsupportedOperationException(
                    "the hold of " + lockName + " stands on several nodes and is not expired: close it");
        }
        return !closed.get() && expire.getAsBoolean();
    }

    @Override
    public String toString() {
        return "LockHold[" + lockName + ", tokens " + tokens + (closed.get() ? ", released]" : "]");
    }
}
