package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.LockNode;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.recipes.locks.Lease;

/**
 * One lease of a {@link ZkSemaphore}: Curator's {@link Lease}, so code written against Curator's semaphores keeps
 * working, with the state of the hold beside it. The lease is its node, a child of the semaphore's
 * {@code <path>/leases}; it lasts until it is returned ({@link #close()}, or the semaphore's {@code returnLease}) or
 * its session ends.
 *
 * <p>Instances are safe for use by multiple threads; a lease belongs to no thread, and any thread may return it, once.
 *
 * <p>ZooKeeper cost: returning it, one delete; {@link #getData()}, one read; {@link #getNodeName()}, {@link #state()}
 * and {@link #isReturned()}, none.
 *
 * @since 0.1.0
 */
public final class ZkLease implements Lease {
    private final LockNode node;
    private final Runnable release;
    private final AtomicBoolean returned = new AtomicBoolean();

    ZkLease(LockNode node, Runnable release) {
        this.node = node;
        this.release = release;
    }

    /**
     * Returns the lease: deletes its node (one request), which lets the semaphore's next waiter in. If the connection
     * is down, the delete is left to Curator's guaranteed delete and the method returns normally. Returning a lease
     * again, or a {@linkplain LockState#LOST lost} one, throws nothing: Curator's lease only logs a node already gone.
     *
     * @throws ZkLockException if ZooKeeper refuses the delete (for example for lack of permission)
     */
    @Override
    public void close() {
        if (returned.compareAndSet(false, true)) {
            release.run();
        }
    }

    /**
     * Reads the data of the lease's node from ZooKeeper (one request): the client's default data, as Curator's lease
     * has it, unless the node was written since.
     *
     * @return the node's data
     * @throws InterruptedException if the thread is interrupted while reading
     * @throws ZkLockException if the node is gone, or ZooKeeper refuses the read
     */
    @Override
    public byte[] getData() throws InterruptedException {
        try {
            return node.queue().client().getData().forPath(node.path());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw node.queue().failure("read the data of lease " + node.path(), e, true);
        }
    }

    /**
     * Returns the name of the lease's node, {@code _c_<uuid>-lease-<sequence>}. No ZooKeeper call.
     *
     * @return the node's name
     */
    @Override
    public String getNodeName() {
        return node.name();
    }

    /**
     * Returns the state of the lease: HELD, IN_DOUBT while the connection is suspended, LOST once its session ended or
     * its node was found gone (another client may hold the lease now). Once the lease is returned its state no longer
     * changes. No ZooKeeper call.
     *
     * @return the current state
     */
    public LockState state() {
        return node.observedState();
    }

    /**
     * Tells whether the lease was returned.
     *
     * @return {@code true} once {@link #close()} was called
     */
    public boolean isReturned() {
        return returned.get();
    }

    /** Returns the node this lease is; for the semaphore that made it. */
    LockNode node() {
        return node;
    }

    @Override
    public String toString() {
        return "ZkLease[" + node + (returned.get() ? ", returned" : ", " + node.trackedState()) + "]";
    }
}
