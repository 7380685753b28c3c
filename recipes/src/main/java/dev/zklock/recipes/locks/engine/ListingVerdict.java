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
 */
record ListingVerdict(
        boolean holds,
        boolean front,
        String watch,
        boolean holdsWithout,
        boolean frontWithout,
        boolean holdsAfterFront,
        boolean frontAfterFront) {
    static ListingVerdict held(boolean front) {
        return new ListingVerdict(true, front, null, false, false, false, false);
    }
}
