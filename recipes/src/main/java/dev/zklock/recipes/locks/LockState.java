package dev.zklock.recipes.locks;

/**
 * What a holder can know about a lock it acquired, as its client's connection comes and goes.
 *
 * <ul>
 *   <li>{@link #HELD}: our node is in place and our session is alive, as far as the client can tell.
 *   <li>{@link #IN_DOUBT}: the connection is suspended. The session may still be alive (then the lock is still ours) or
 *       may expire (then another client may take the lock). A holder should stop work that must never overlap, or
 *       carry on only with writes its resource can fence by the token.
 *   <li>{@link #LOST}: the session ended, or our node was found gone: another client may hold the lock now. The
 *       holder must stop, and release the lock (which clears the local hold and deletes what may be left of its node;
 *       it throws nothing for a node already gone) before acquiring it again.
 * </ul>
 *
 * <p>IN_DOUBT turns back into HELD after a reconnect that finds our node still there and owned by the current
 * session; it turns into LOST otherwise. LOST is final.
 *
 * @since 0.1.0
 */
public enum LockState {
    /** The lock is ours. */
    HELD,
    /** The connection is suspended: the lock may be ours or may be lost. */
    IN_DOUBT,
    /** The lock is lost: our session ended or our node is gone. */
    LOST
}
