package dev.zklock.recipes.locks;

/**
 * A change of state of one held lock, as a {@link LockStateListener} hears it.
 *
 * @param lockPath the lock path, relative to the client's namespace
 * @param node the full path of our node
 * @param fencingToken the fencing token of the node's first hold ({@link FencingToken#of}{@code (czxid, 0)}); the holds
 *     that a cohort passed the node to after it have the tokens that follow
 * @param sessionId the ZooKeeper session that created our node
 * @param previous the state before the change
 * @param state the state now
 * @since 0.1.0
 */
public record LockStateEvent(
        String lockPath, String node, long fencingToken, long sessionId, LockState previous, LockState state) {
    @Override
    public String toString() {
        return "LockStateEvent[" + lockPath + " " + previous + " -> " + state + ", node " + node + ", token "
                + fencingToken + ", session 0x" + Long.toHexString(sessionId) + "]";
    }
}
