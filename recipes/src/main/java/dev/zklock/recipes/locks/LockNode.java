package dev.zklock.recipes.locks;

/**
 * One lock node this process created and holds or waits with.
 *
 * @param path the node's full path, relative to the client's namespace
 * @param name the node's name, the last segment of {@code path}
 * @param token the fencing token: the node's creation zxid, which grows across the whole ensemble
 * @param sessionId the ZooKeeper session that owns the ephemeral node
 */
record LockNode(String path, String name, long token, long sessionId) {
    @Override
    public String toString() {
        return path + " (token " + token + ", session 0x" + Long.toHexString(sessionId) + ")";
    }
}
