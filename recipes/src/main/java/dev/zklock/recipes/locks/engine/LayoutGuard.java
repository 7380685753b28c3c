package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.ZkLockException;
import java.util.List;
import org.apache.curator.utils.ZKPaths;

/**
 * Refuses a lock whose path holds nodes of the other exclusive layout, which its own does not exclude. Curator has two,
 * and on one path they hold at once:
 *
 * <ul>
 *   <li>the <b>mutex layout</b> of {@code InterProcessMutex}: a queue of sequential nodes right under the path
 *       ({@code _c_<uuid>-lock-<sequence>}); zklock's {@code ZkReentrantLock}, {@code ZkExclusiveLock.mutexLayout},
 *       the read/write lock and the multi-lock members queue there too;
 *   <li>the <b>semaphore-mutex layout</b> of {@code InterProcessSemaphoreMutex} (and {@code InterProcessSemaphoreV2}):
 *       {@code <path>/locks} and {@code <path>/leases}; zklock's {@code ZkExclusiveLock} and {@code ZkSemaphore}.
 * </ul>
 *
 * <p>A team that moves from one recipe to the other one process at a time would hold twice. A holder cannot see a lock
 * of the other layout that comes after it, so each side looks in the listing it makes right after its create:
 *
 * <ul>
 *   <li>a queue listing of the path with a child named {@code locks} or {@code leases}: a semaphore-mutex is there;
 *   <li>a semaphore's internal mutex lists the semaphore's path beside its own queue, in one read-only transaction (one
 *       request, as the listing alone was): a sequential child of the path (its name ends in 10 digits) is a node of
 *       the mutex layout.
 * </ul>
 *
 * <p>Each lists after its create, so of two zklock locks of different layouts on one path the one whose listing comes
 * second in the server's order sees the other's nodes: they never hold at once. Curator's own recipes do not look, and
 * are refused only when zklock's lock comes second. A path that is both a mutex-layout lock and the parent of lock
 * paths named {@code locks} or {@code leases} is refused too: such paths must move.
 *
 * <p>Stateless; costs no request of its own.
 */
final class LayoutGuard {
    private static final String MUTEX_LAYOUT =
            "the mutex layout (Curator's InterProcessMutex; zklock's ZkReentrantLock, ZkExclusiveLock.mutexLayout,"
                    + " ZkReadWriteLock)";
    private static final String SEMAPHORE_LAYOUT =
            "the semaphore-mutex layout (Curator's InterProcessSemaphoreMutex and InterProcessSemaphoreV2; zklock's"
                    + " new ZkExclusiveLock(client, path) and ZkSemaphore)";
    private static final int SEQUENCE_DIGITS = 10;

    private LayoutGuard() {}

    /**
     * Why a lock of {@code lockPath} must not go on, having listed {@code children} of its queue (and, for a
     * semaphore's internal mutex, {@code semaphoreChildren} of the semaphore's path); null if nothing of the other
     * layout is there.
     */
    static String refusal(LockPath lockPath, List<String> children, List<String> semaphoreChildren) {
        if (semaphoreChildren != null) {
            for (String child : semaphoreChildren) {
                if (isSequential(child)) {
                    String semaphore = lockPath.semaphorePath();
                    return refused(
                            semaphore,
                            ZKPaths.makePath(semaphore, child),
                            MUTEX_LAYOUT,
                            SEMAPHORE_LAYOUT,
                            "ZkExclusiveLock.mutexLayout(client, path) or a ZkReentrantLock");
                }
            }
            return null;
        }
        for (String child : children) {
            if (child.equals(LeaseQueue.LOCK_PARENT) || child.equals(LeaseQueue.LEASE_PARENT)) {
                String path = lockPath.path();
                return refused(
                        path,
                        ZKPaths.makePath(path, child),
                        SEMAPHORE_LAYOUT,
                        MUTEX_LAYOUT,
                        "new ZkExclusiveLock(client, path) or a ZkSemaphore");
            }
        }
        return null;
    }

    /** The failure of an acquire that {@link #refusal} refused: it gives up, and leaves no node behind. */
    static ZkLockException exception(LockPath lockPath, String refusal) {
        String path = lockPath.semaphorePath() != null ? lockPath.semaphorePath() : lockPath.path();
        return new ZkLockException(refusal + " (no node left behind)", path, true, null, null);
    }

    private static String refused(String path, String found, String theirs, String ours, String use) {
        return String.format(
                "lock '%s' refused: the path holds '%s', a node of %s, which a lock of %s does not exclude; lock this"
                        + " path with %s, or use another path",
                path, found, theirs, ours, use);
    }

    /** Tells whether a child's name ends in a sequence number ZooKeeper appended: a queue's node. */
    private static boolean isSequential(String child) {
        if (child.length() <= SEQUENCE_DIGITS) {
            return false;
        }
        for (int i = child.length() - SEQUENCE_DIGITS; i < child.length(); i++) {
            if (!Character.isDigit(child.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
