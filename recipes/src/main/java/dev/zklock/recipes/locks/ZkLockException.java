package dev.zklock.recipes.locks;

import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/**
 * Thrown when ZooKeeper refuses a request that a lock needs, for example when the client's credentials do not allow
 * creating a node under the lock path. It names the lock path and says whether the node this acquisition created was
 * deleted before the exception was thrown; the {@link KeeperException}, when there is one, is the cause.
 *
 * <p>An interrupted acquire throws {@link InterruptedException} instead, and a timed acquire that runs out of time
 * returns {@code false}: neither is wrapped in this exception.
 *
 * @since 0.1.0
 */
public final class ZkLockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The lock path, relative to the client's namespace. */
    private final String lockPath;

    /** Whether nothing this acquisition created is left behind. */
    private final boolean cleanedUp;

    /** The ZooKeeper error code, or null. */
    private final KeeperException.Code code;

    /**
     * Creates the exception; zklock's locks throw it, and a lock built on zklock's engine may too.
     *
     * @param message what could not be done, naming the lock path and the ZooKeeper error
     * @param lockPath the lock path, relative to the client's namespace, or null for a lock that has none
     * @param cleanedUp whether nothing the acquisition created is left behind
     * @param code the ZooKeeper error code, or null if the failure was not ZooKeeper's
     * @param cause the underlying failure, or null
     */
    public ZkLockException(
            String message, String lockPath, boolean cleanedUp, KeeperException.Code code, Throwable cause) {
        super(message, cause);
        this.lockPath = lockPath;
        this.cleanedUp = cleanedUp;
        this.code = code;
    }

    /**
     * Returns the path of the lock that failed, relative to the client's namespace.
     *
     * @return the lock path, or null for a failure with no lock path (a member of a multi-lock over arbitrary locks
     *     that is not a zklock lock)
     */
    public String lockPath() {
        return lockPath;
    }

    /**
     * Tells whether no node of this acquisition remains: either none was created, or it was deleted before this
     * exception was thrown. When {@code false}, the node is being deleted in the background (a guaranteed delete that
     * is retried when the connection comes back), or it goes when the session ends.
     *
     * @return {@code true} if nothing this acquisition created is left behind
     */
    public boolean isCleanedUp() {
        return cleanedUp;
    }

    /**
     * Returns the ZooKeeper error code, when ZooKeeper gave one.
     *
     * @return the code of the {@link KeeperException} that caused this exception, or empty
     */
    public Optional<KeeperException.Code> code() {
        return Optional.ofNullable(code);
    }
}
