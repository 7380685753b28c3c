package dev.zklock.recipes.locks.engine;

/**
 * A watch a runner has set and must remove if it ends before the watch fires: on a node's data (the node ahead in a
 * lock queue) or on a path's children (a semaphore's leases). Immutable.
 *
 * @param owner the lock path whose client set it
 * @param session the session it was set on
 * @param path its path, fixed for the client's namespace
 * @param watcher the watcher it tells
 * @param children a child watch, not a data watch
 */
record SetWatch(LockPath owner, ZooKeeperHandle session, String path, NodeWatcher watcher, boolean children) {
    /** Removes the watch from the client: one request, not waited for ({@link LockPath#removeWatch}). */
    void remove() {
        watcher.close();
        owner.removeWatch(session, path, watcher, children);
    }
}
