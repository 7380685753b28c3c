package dev.zklock.recipes.locks.engine;

/**
 * What one listing of one queue said, kept instead of the listing: holds (and whether from the front, with no node
 * ranked before ours), or the node to watch and what its deletion would mean without a new listing ({@link
 * Acquisition}). Immutable.
 *
 * @param holds our node holds the lock
 * @param front it holds with no node ranked before it
 * @param watch the namespace-fixed path of the node to watch, when it does not hold: the one string of that node
 *     a waiting thread keeps ({@link Command.Watch})
 * @param holdsWithout the driver holds once the watched node is gone (it was the only node blocking ours)
 * @param frontWithout ... and then no node is ranked before ours
 * @param holdsAfterFront the driver holds once the watched node and every node before it are gone (it had held
 *     from the front)
 * @param frontAfterFront ... and then no node is ranked before ours
 * @param ownAhead the watched node when it is a node of this client on our session right before ours (whose own watch
 *     can tell the waiter: {@link NodeWatcher#setOn}), else null; its path is {@code watch}
 */
record ListingVerdict(
        boolean holds,
        boolean front,
        String watch,
        boolean holdsWithout,
        boolean frontWithout,
        boolean holdsAfterFront,
        boolean frontAfterFront,
        LockNode ownAhead) {
    private static final int DECIDED = 1;
    private static final int HOLDS = 1 << 1;
    private static final int FRONT = 1 << 2;
    private static final int HOLDS_WITHOUT = 1 << 3;
    private static final int FRONT_WITHOUT = 1 << 4;
    private static final int HOLDS_AFTER_FRONT = 1 << 5;
    private static final int FRONT_AFTER_FRONT = 1 << 6;

    static ListingVerdict held(boolean front) {
        return new ListingVerdict(true, front, null, false, false, false, false, null);
    }

    /**
     * The verdict's six answers in one byte, for a machine that keeps it as that byte and {@link #watched} instead of
     * the object (a waiting thread keeps 24 bytes fewer); {@link #of} reads it back. Never 0, which stands for no
     * verdict.
     */
    byte flags() {
        return (byte) (DECIDED
                | (holds ? HOLDS : 0)
                | (front ? FRONT : 0)
                | (holdsWithout ? HOLDS_WITHOUT : 0)
                | (frontWithout ? FRONT_WITHOUT : 0)
                | (holdsAfterFront ? HOLDS_AFTER_FRONT : 0)
                | (frontAfterFront ? FRONT_AFTER_FRONT : 0));
    }

    /** The watched node as one reference: {@link #ownAhead} if there is one, else {@link #watch} (or null). */
    Object watched() {
        return ownAhead != null ? ownAhead : watch;
    }

    /** The verdict of {@link #watched} and {@link #flags}, or null for flags 0 (none). */
    static ListingVerdict of(Object watched, byte flags) {
        if (flags == 0) {
            return null;
        }
        LockNode ahead = watched instanceof LockNode node ? node : null;
        return new ListingVerdict(
                (flags & HOLDS) != 0,
                (flags & FRONT) != 0,
                ahead != null ? ahead.fixedPath() : (String) watched,
                (flags & HOLDS_WITHOUT) != 0,
                (flags & FRONT_WITHOUT) != 0,
                (flags & HOLDS_AFTER_FRONT) != 0,
                (flags & FRONT_AFTER_FRONT) != 0,
                ahead);
    }
}
