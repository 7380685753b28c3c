package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.CohortSettings;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.NodeNames;
import dev.zklock.recipes.locks.engine.ReadWriteEntry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.RevocationListener;

/**
 * A distributed read/write lock on a ZooKeeper path: many readers or one writer. The zklock counterpart of Curator's
 * {@code InterProcessReadWriteLock}, shaped like the JDK's {@code ReadWriteLock}.
 *
 * <h2>Semantics</h2>
 *
 * <p>{@link #readLock()} and {@link #writeLock()} are two locks over one queue under the path. A reader holds when no
 * writer is queued before it; a writer holds when it is first. Order is FIFO by ZooKeeper sequence, so a reader that
 * arrives behind a queued writer waits for it: writers cannot starve. Both locks are reentrant per thread.
 * <b>Downgrade:</b> a thread that holds the write lock may take the read lock (at once, without waiting) and then
 * release the write lock; no other writer can get in between. <b>Upgrade</b> cannot succeed (two readers asking for the
 * write lock would wait for each other forever), so a thread that holds only the read lock and asks for the write lock
 * through the same {@code ZkReadWriteLock} gets an {@link IllegalStateException} at once, rather than waiting out its
 * timeout. Nodes are named as Curator names them ({@code _c_<uuid>-__READ__<sequence>} and
 * {@code _c_<uuid>-__WRIT__<sequence>}, a downgrade's read node carrying the writer's sequence), so a zklock and a
 * Curator read/write lock on one path work together.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; ownership of each lock is per thread.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <ul>
 *   <li>uncontended acquire of either lock: one round trip (a create and a listing, pipelined: 2 requests), and the
 *       read, not waited for, that sets the watch vouching for the hold ({@link ZkReentrantLock}); a downgrade: the
 *       same, and never waits;
 *   <li>re-entry, inner releases, and the upgrade check: none;
 *   <li>waiting: a reader holds one watch, on the nearest writer before it, so a write release wakes exactly the
 *       readers behind that writer; a writer watches the node just before it. After the watched node goes: no request
 *       when it was the only node ahead (a reader behind its writer, or a writer behind its last reader), otherwise one
 *       listing; a writer whose watched node is a writer always lists, because a Curator downgrade can put a read node
 *       ahead of it. A node right behind a writer of the same client (or a writer right behind any node of it) enters
 *       with the create alone and watches that node without a listing; a reader right behind a reader lists;
 *   <li>release: one request (a delete); an acquire that gives up: one delete, and one watch removal if it waited.
 * </ul>
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>As {@link ZkReentrantLock}: each hold lives as long as the session that created its node; fence writes with
 * {@link ReadLock#fencingToken()} or {@link WriteLock#fencingToken()}; a timed-out, interrupted or failed acquire
 * deletes its node; release is a guaranteed delete.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkReadWriteLock rw = new ZkReadWriteLock(client, "/locks/catalog");
 * rw.writeLock().acquire();
 * try {
 *     catalog.rebuild(rw.writeLock().fencingToken());
 *     rw.readLock().acquire();          // downgrade: never waits
 * } finally {
 *     rw.writeLock().release();         // readers may enter; writers still wait for our read lock
 * }
 * try {
 *     catalog.publish();
 * } finally {
 *     rw.readLock().release();
 * }
 * }</pre>
 *
 * <p>Built with {@link #builder(CuratorFramework, String)} and {@link ZkLockBuilder#localHandOff()}, reader threads of
 * this process share one read node and writer threads pass one write node locally; see {@link #builder} and
 * {@link ZkLockBuilder}.
 *
 * @since 0.1.0
 */
public final class ZkReadWriteLock {
    private final ReadLock readLock;
    private final WriteLock writeLock;

    /**
     * Creates a read/write lock on {@code path}. No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkReadWriteLock(CuratorFramework client, String path) {
        this(writeQueue(client, path, null), readQueue(client, path, null), null);
    }

    /**
     * Creates a read/write lock on {@code path} whose nodes carry {@code lockData}, as Curator's
     * {@code InterProcessReadWriteLock(client, basePath, lockData)} does: for example the holder's name, which
     * {@code zklock inspect} shows. No ZooKeeper call; the client need not be started yet.
     *
     * @param client the client to use; its namespace and ACL provider apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @param lockData the data of every node of this lock; copied, so later changes to the array do not matter
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public ZkReadWriteLock(CuratorFramework client, String path, byte[] lockData) {
        this(
                writeQueue(client, path, Objects.requireNonNull(lockData, "lockData")),
                readQueue(client, path, lockData),
                null);
    }

    /** @param settings the local hand-off of both sides, or null for none */
    private ZkReadWriteLock(LockPath writeQueue, LockPath readQueue, CohortSettings settings) {
        if (settings == null) {
            this.writeLock = new WriteLock(LockCore.of(writeQueue));
            this.readLock = new ReadLock(LockCore.of(readQueue));
        } else {
            // A thread that holds the write lock takes its read node beside it, not the read cohort's; the write cohort
            // passes its node no more while such a read node stands.
            LockCore writeCore = LockCore.withCohort(writeQueue, settings, false, null);
            this.writeLock = new WriteLock(writeCore);
            this.readLock = new ReadLock(LockCore.withCohort(readQueue, settings, true, writeCore));
        }
    }

    /**
     * Returns a builder of a read/write lock on {@code path}, for the options a constructor does not take: local
     * hand-off among the threads of this process and caching of an idle node, for both sides ({@link ZkLockBuilder}),
     * and node data. Reader threads of this process share one read node while it holds, as long as no writer is queued
     * behind it (then new readers queue, so writers never starve; a reader that comes while the lock checks for one,
     * after a change of the queue or every {@code maxTime} while readers overlap, waits for that one listing); writer
     * threads pass the write node locally within the bounds. No ZooKeeper call.
     *
     * @param client the client to use; its namespace, ACL provider and default node data apply
     * @param path the lock path, absolute, relative to the client's namespace
     * @return a builder with no option set: it builds a lock like {@code new ZkReadWriteLock(client, path)}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code path} is not a valid ZooKeeper path
     */
    public static Builder builder(CuratorFramework client, String path) {
        return new Builder(client, path);
    }

    /**
     * Builds a {@link ZkReadWriteLock}; see {@link ZkLockBuilder} for the options it shares with every lock builder.
     * Not thread-safe.
     *
     * @since 0.1.0
     */
    public static final class Builder extends ZkLockBuilder<Builder, ZkReadWriteLock> {
        private byte[] lockData;

        private Builder(CuratorFramework client, String path) {
            super(client, path);
        }

        /**
         * Gives every node of the lock {@code lockData}, as Curator's {@code InterProcessReadWriteLock(client,
         * basePath, lockData)} does.
         *
         * @param lockData the data; copied, so later changes to the array do not matter
         * @return this builder
         * @throws NullPointerException if {@code lockData} is null
         */
        public Builder lockData(byte[] lockData) {
            this.lockData = Objects.requireNonNull(lockData, "lockData").clone();
            return this;
        }

        @Override
        public ZkReadWriteLock build() {
            LockPath writeQueue = writeQueue(client(), path(), lockData);
            LockPath readQueue = readQueue(client(), path(), lockData);
            if (usesQueueView()) {
                writeQueue.useQueueView(viewRoot());
                readQueue.useQueueView(viewRoot());
            }
            return new ZkReadWriteLock(writeQueue, readQueue, cohortSettings());
        }
    }

    private static LockPath writeQueue(CuratorFramework client, String path, byte[] lockData) {
        return new LockPath(client, path, NodeNames.WRITE_LOCK_NAME, LockDriver.write(), lockData);
    }

    private static LockPath readQueue(CuratorFramework client, String path, byte[] lockData) {
        return new LockPath(client, path, NodeNames.READ_LOCK_NAME, LockDriver.read(), lockData);
    }

    /**
     * Returns the read lock: shared among readers, excluded by writers.
     *
     * @return the read lock of this instance
     */
    public ReadLock readLock() {
        return readLock;
    }

    /**
     * Returns the write lock: excludes readers and other writers.
     *
     * @return the write lock of this instance
     */
    public WriteLock writeLock() {
        return writeLock;
    }

    /**
     * Returns the full paths of every node in the queue, readers and writers, in queue order: for monitoring, not for
     * synchronization control. One listing.
     *
     * @return the paths (relative to the client's namespace), empty if the lock path does not exist
     * @throws InterruptedException if the thread is interrupted while listing
     * @throws ZkLockException if ZooKeeper refuses the listing
     */
    public List<String> participantNodes() throws InterruptedException {
        return readLock.core.path().participantNodes();
    }

    /**
     * Returns the lock path, relative to the client's namespace.
     *
     * @return the path given to the constructor
     */
    public String path() {
        return readLock.path();
    }

    /**
     * Asks whoever holds the lock path, readers or writer, to let go, as each holder's node is listed now (Curator's
     * holders too, if they made their lock revocable). One listing, and one request per holder.
     *
     * @return how many holders were asked
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws ZkLockException if ZooKeeper refuses the listing or a write
     */
    public int requestRevocation() throws InterruptedException {
        return Revocation.requestOfHolders(readLock.core.path());
    }

    @Override
    public String toString() {
        return "ZkReadWriteLock[" + path() + "]";
    }

    /**
     * The read lock of a {@link ZkReadWriteLock}: shared among readers, reentrant per thread. A thread that holds the
     * write lock takes it at once (a downgrade). See {@link ZkReadWriteLock} for semantics, cost and failure behaviour.
     *
     * <p>Instances are safe for use by multiple threads; ownership is per thread.
     *
     * @since 0.1.0
     */
    public final class ReadLock extends ThreadOwnedLock {
        private ReadLock(LockCore core) {
            super(core);
        }

        /**
         * A thread that holds the write lock downgrades: its read node stands beside its write node and holds at once
         * ({@link ReadWriteEntry}).
         */
        @Override
        Optional<Hold> enter(Deadline deadline) throws InterruptedException {
            Hold write = writeLock.holds.heldByCurrentThread();
            return ReadWriteEntry.ofRead(write != null) == ReadWriteEntry.BESIDE
                    ? core.acquireAlongside(write, deadline)
                    : core.acquire(deadline);
        }

        /**
         * Returns the full paths of the read nodes in the queue, in queue order: for monitoring, not for
         * synchronization control. One listing.
         *
         * @return the paths of read nodes (relative to the client's namespace)
         * @throws InterruptedException if the thread is interrupted while listing
         * @throws ZkLockException if ZooKeeper refuses the listing
         */
        @Override
        public List<String> participantNodes() throws InterruptedException {
            return core.path().participantNodes().stream()
                    .filter(node -> !NodeNames.isWriter(node))
                    .toList();
        }

        /**
         * Makes this lock revocable: every hold granted after this call keeps a data watch on its node, and a request to let
         * go (Curator's {@code Revoker.attemptRevoke(client, nodePath)}, or {@link Revocation#request}) calls
         * {@code listener} once per request, on the common fork-join pool, never on ZooKeeper's event thread. Revocation is
         * cooperative: the listener decides whether and when the holder releases. Costs one data read per hold, and one per
         * request; a lock not made revocable costs nothing for it.
         *
         * @param listener told of each request, with this lock
         * @throws NullPointerException if {@code listener} is null
         */
        public void makeRevocable(RevocationListener<? super ReadLock> listener) {
            makeRevocable(listener, ForkJoinPool.commonPool());
        }

        /**
         * Makes this lock revocable, its listener run on {@code executor}; see {@link #makeRevocable(RevocationListener)}.
         *
         * @param listener told of each request, with this lock
         * @param executor runs the listener; it must not run it on the calling thread if that may be ZooKeeper's event
         *     thread and the listener blocks
         * @throws NullPointerException if an argument is null
         */
        public void makeRevocable(RevocationListener<? super ReadLock> listener, Executor executor) {
            Objects.requireNonNull(listener, "listener");
            revocable(() -> listener.revocationRequested(this), executor);
        }

        /**
         * Asks whoever holds this lock's path (readers and writers) to let go, as each holder's node is listed now (Curator's holders too, if they made
         * their lock revocable). One listing, and one request per holder.
         *
         * @return how many holders were asked
         * @throws InterruptedException if the thread is interrupted meanwhile
         * @throws ZkLockException if ZooKeeper refuses the listing or a write
         */
        public int requestRevocation() throws InterruptedException {
            return Revocation.requestOfHolders(core.path());
        }

        @Override
        public String toString() {
            return "ZkReadWriteLock.ReadLock[" + path() + "]";
        }
    }

    /**
     * The write lock of a {@link ZkReadWriteLock}: exclusive, reentrant per thread. A thread that holds only the read
     * lock cannot take it (an upgrade would wait forever): it gets an {@link IllegalStateException} at once. See
     * {@link ZkReadWriteLock} for semantics, cost and failure behaviour.
     *
     * <p>Instances are safe for use by multiple threads; ownership is per thread.
     *
     * @since 0.1.0
     */
    public final class WriteLock extends ThreadOwnedLock {
        private WriteLock(LockCore core) {
            super(core);
        }

        /**
         * Refuses an upgrade at once, in every mode: a reader that queued for the write lock would wait for itself
         * ({@link ReadWriteEntry}).
         */
        @Override
        Optional<Hold> enter(Deadline deadline) throws InterruptedException {
            Checks.requireState(
                    ReadWriteEntry.ofWrite(readLock.holds.heldByCurrentThread() != null) != ReadWriteEntry.REFUSE,
                    "thread '%s' holds the read lock of '%s' and asks for its write lock: an upgrade would wait"
                            + " forever; release the read lock first",
                    Thread.currentThread().getName(),
                    path());
            return core.acquire(deadline);
        }

        /**
         * Returns the full paths of the write nodes in the queue, in queue order: for monitoring, not for
         * synchronization control. One listing.
         *
         * @return the paths of write nodes (relative to the client's namespace)
         * @throws InterruptedException if the thread is interrupted while listing
         * @throws ZkLockException if ZooKeeper refuses the listing
         */
        @Override
        public List<String> participantNodes() throws InterruptedException {
            return core.path().participantNodes().stream()
                    .filter(NodeNames::isWriter)
                    .toList();
        }

        /**
         * Makes this lock revocable: every hold granted after this call keeps a data watch on its node, and a request to let
         * go (Curator's {@code Revoker.attemptRevoke(client, nodePath)}, or {@link Revocation#request}) calls
         * {@code listener} once per request, on the common fork-join pool, never on ZooKeeper's event thread. Revocation is
         * cooperative: the listener decides whether and when the holder releases. Costs one data read per hold, and one per
         * request; a lock not made revocable costs nothing for it.
         *
         * @param listener told of each request, with this lock
         * @throws NullPointerException if {@code listener} is null
         */
        public void makeRevocable(RevocationListener<? super WriteLock> listener) {
            makeRevocable(listener, ForkJoinPool.commonPool());
        }

        /**
         * Makes this lock revocable, its listener run on {@code executor}; see {@link #makeRevocable(RevocationListener)}.
         *
         * @param listener told of each request, with this lock
         * @param executor runs the listener; it must not run it on the calling thread if that may be ZooKeeper's event
         *     thread and the listener blocks
         * @throws NullPointerException if an argument is null
         */
        public void makeRevocable(RevocationListener<? super WriteLock> listener, Executor executor) {
            Objects.requireNonNull(listener, "listener");
            revocable(() -> listener.revocationRequested(this), executor);
        }

        /**
         * Asks whoever holds this lock's path (readers and writers) to let go, as each holder's node is listed now (Curator's holders too, if they made
         * their lock revocable). One listing, and one request per holder.
         *
         * @return how many holders were asked
         * @throws InterruptedException if the thread is interrupted meanwhile
         * @throws ZkLockException if ZooKeeper refuses the listing or a write
         */
        public int requestRevocation() throws InterruptedException {
            return Revocation.requestOfHolders(core.path());
        }

        @Override
        public String toString() {
            return "ZkReadWriteLock.WriteLock[" + path() + "]";
        }
    }
}
