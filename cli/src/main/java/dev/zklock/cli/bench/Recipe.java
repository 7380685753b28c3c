package dev.zklock.cli.bench;

import dev.zklock.recipes.locks.ZkExclusiveLock;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.ZkReadWriteLock;
import dev.zklock.recipes.locks.ZkReentrantLock;
import dev.zklock.recipes.locks.ZkSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;

/**
 * A zklock lock and its Curator counterpart, as the bench pits them against each other: both made the same way on the
 * same client and path. Either a whole recipe, or the part of one that is a plain lock on its own (the read lock of a
 * read/write lock; a multi-lock over a given number of paths). What is not a plain lock (readers and a writer at once,
 * multi-locks in crossed orders) gets a {@link Scenario} of its own.
 *
 * @param key unique among recipes, usable in a ZooKeeper path and in JSON, e.g. "reentrant", "multi-8"
 * @param zklockName the zklock class
 * @param curatorName the Curator class
 * @param part what of the pair is measured, e.g. "read lock", "8 paths"; empty for a whole recipe
 * @param paths how many lock paths one lock takes: 1, or more for a multi-lock; see {@link #lockPaths(String)}
 * @param zklock makes the zklock lock
 * @param curator makes the Curator lock
 * @param sharedByThreads whether threads of one process may share one lock object, each holding in turn
 * @param holders how many may hold at once: 1 for a lock, the lease count for a semaphore (whose lock objects are
 *     one lease each)
 * @param semaphoreLayout whether the lock lives in a semaphore's layout, under {@code <path>/locks} and
 *     {@code <path>/leases}, rather than on the path itself
 */
record Recipe(
        String key,
        String zklockName,
        String curatorName,
        String part,
        int paths,
        Maker zklock,
        Maker curator,
        boolean sharedByThreads,
        int holders,
        boolean semaphoreLayout) {

    /**
     * The most local passes in a row of a lock with local hand-off once another session waits: the documented default
     * of {@code ZkLockBuilder.localHandOff()}, given explicitly so that the targets that depend on it follow it.
     */
    static final int MAX_PASSES = 64;

    /** The longest a lock with local hand-off passes locally once another session waits: the documented default. */
    static final Duration MAX_TIME = Duration.ofMillis(5);

    /** Makes one lock object on a client and path. */
    @FunctionalInterface
    interface Maker {
        InterProcessLock make(CuratorFramework client, String path);
    }

    /** {@code ZkReentrantLock} against {@code InterProcessMutex}: reentrant, owned per thread. */
    static Recipe reentrant() {
        return new Recipe(
                "reentrant",
                "ZkReentrantLock",
                "InterProcessMutex",
                "",
                1,
                ZkReentrantLock::new,
                InterProcessMutex::new,
                true,
                1,
                false);
    }

    /**
     * {@code ZkReentrantLock} built with local hand-off at its documented bounds ({@link #MAX_PASSES} passes,
     * {@link #MAX_TIME}) against {@code InterProcessMutex}: the threads that share one lock object pass it among
     * themselves.
     */
    static Recipe reentrantLocalHandOff() {
        return new Recipe(
                "reentrant-local-hand-off",
                "ZkReentrantLock",
                "InterProcessMutex",
                "local hand-off",
                1,
                (client, path) -> ZkReentrantLock.builder(client, path)
                        .localHandOff(MAX_PASSES, MAX_TIME)
                        .build(),
                InterProcessMutex::new,
                true,
                1,
                false);
    }

    /**
     * {@code ZkReentrantLock} built with a queue view (one persistent recursive watch per client and lock path answers
     * its listings and watches) against {@code InterProcessMutex}: the same node layout, half the requests.
     */
    static Recipe reentrantQueueView() {
        return new Recipe(
                "reentrant-queue-view",
                "ZkReentrantLock",
                "InterProcessMutex",
                "queue view",
                1,
                (client, path) ->
                        ZkReentrantLock.builder(client, path).queueView().build(),
                InterProcessMutex::new,
                true,
                1,
                false);
    }

    /**
     * {@code ZkReentrantLock} with a queue view against {@code ZkReentrantLock} in its default mode: one recipe's two
     * modes on the same layout, their rounds alternating as any pair's do, so that the view's fan-out (every client hears
     * every change under its root) is weighed against the mode it replaces in one measurement, not across two scenarios
     * run minutes apart.
     */
    static Recipe queueViewVsDefault() {
        return new Recipe(
                "reentrant-view-vs-default",
                "ZkReentrantLock with a queue view",
                "ZkReentrantLock in its default mode",
                "",
                1,
                (client, path) ->
                        ZkReentrantLock.builder(client, path).queueView().build(),
                ZkReentrantLock::new,
                true,
                1,
                false);
    }

    /**
     * {@code ZkReentrantLock} built to keep its node for {@code keepIdle} after the last release, against
     * {@code InterProcessMutex}, which keeps nothing.
     */
    static Recipe reentrantKeepIdle(Duration keepIdle) {
        return new Recipe(
                "reentrant-keep-idle",
                "ZkReentrantLock",
                "InterProcessMutex",
                "keepIdle",
                1,
                (client, path) ->
                        ZkReentrantLock.builder(client, path).keepIdle(keepIdle).build(),
                InterProcessMutex::new,
                true,
                1,
                false);
    }

    /**
     * A key's lock of zklock's Spring Integration registry ({@code ZkSpringLockRegistry}, local hand-off on as by
     * default) against that of Spring's {@code ZookeeperLockRegistry}: one registry per lock object, on the lock path's
     * parent as root.
     */
    static Recipe springRegistry() {
        return new Recipe(
                "spring",
                "ZkSpringLockRegistry",
                "ZookeeperLockRegistry",
                "",
                1,
                SpringRegistryLock::zklock,
                SpringRegistryLock::spring,
                true,
                1,
                false);
    }

    /**
     * {@code ZkExclusiveLock} in the mutex layout ({@code mutexLayout}) against {@code InterProcessSemaphoreMutex}: not
     * reentrant, owned per instance; the two do not share a path, so this pits the faster layout against Curator's
     * non-reentrant lock, not like for like ({@link #exclusiveSemaphoreLayout} is).
     */
    static Recipe exclusive() {
        return new Recipe(
                "exclusive",
                "ZkExclusiveLock.mutexLayout",
                "InterProcessSemaphoreMutex",
                "",
                1,
                ZkExclusiveLock::mutexLayout,
                InterProcessSemaphoreMutex::new,
                false,
                1,
                false);
    }

    /**
     * {@code ZkExclusiveLock} in its default layout, the semaphore-mutex layout, against
     * {@code InterProcessSemaphoreMutex}: both a semaphore of one lease behind an internal mutex, interoperable on one
     * path.
     */
    static Recipe exclusiveSemaphoreLayout() {
        return new Recipe(
                "exclusive-semaphore",
                "ZkExclusiveLock",
                "InterProcessSemaphoreMutex",
                "",
                1,
                ZkExclusiveLock::new,
                InterProcessSemaphoreMutex::new,
                false,
                1,
                true);
    }

    /**
     * {@code ZkSemaphore} against {@code InterProcessSemaphoreV2}, both of {@code leases} leases on one layout: each
     * lock object takes and returns one lease ({@link LeaseLock}).
     */
    static Recipe semaphore(int leases) {
        return new Recipe(
                "semaphore-" + leases,
                "ZkSemaphore",
                "InterProcessSemaphoreV2",
                leases + " leases",
                1,
                (client, path) -> LeaseLock.of(new ZkSemaphore(client, path, leases)),
                (client, path) -> LeaseLock.of(new InterProcessSemaphoreV2(client, path, leases)),
                false,
                leases,
                true);
    }

    /** The read lock of {@code ZkReadWriteLock} against that of {@code InterProcessReadWriteLock}. */
    static Recipe readLock() {
        return new Recipe(
                "readwrite-read",
                "ZkReadWriteLock",
                "InterProcessReadWriteLock",
                "read lock",
                1,
                (client, path) -> new ZkReadWriteLock(client, path).readLock(),
                (client, path) -> new InterProcessReadWriteLock(client, path).readLock(),
                false,
                1,
                false);
    }

    /**
     * The read lock of a {@code ZkReadWriteLock} built with local hand-off at its documented bounds, against that of
     * {@code InterProcessReadWriteLock}: the threads that share one lock object share one read node.
     */
    static Recipe readLockLocalHandOff() {
        return new Recipe(
                "readwrite-read-local-hand-off",
                "ZkReadWriteLock",
                "InterProcessReadWriteLock",
                "read lock, local hand-off",
                1,
                (client, path) -> ZkReadWriteLock.builder(client, path)
                        .localHandOff(MAX_PASSES, MAX_TIME)
                        .build()
                        .readLock(),
                (client, path) -> new InterProcessReadWriteLock(client, path).readLock(),
                true,
                1,
                false);
    }

    /** The write lock of {@code ZkReadWriteLock} against that of {@code InterProcessReadWriteLock}. */
    static Recipe writeLock() {
        return new Recipe(
                "readwrite-write",
                "ZkReadWriteLock",
                "InterProcessReadWriteLock",
                "write lock",
                1,
                (client, path) -> new ZkReadWriteLock(client, path).writeLock(),
                (client, path) -> new InterProcessReadWriteLock(client, path).writeLock(),
                false,
                1,
                false);
    }

    /**
     * {@code ZkMultiLock} over {@code count} paths against {@code InterProcessMultiLock} over an
     * {@code InterProcessMutex} on each of the same paths, in the same order.
     */
    static Recipe multi(int count) {
        return multi(count, false);
    }

    /** As {@link #multi(int)}, with the same paths given in the reverse order. */
    static Recipe multiInReverse(int count) {
        return multi(count, true);
    }

    private static Recipe multi(int count, boolean reverse) {
        return new Recipe(
                "multi-" + count + (reverse ? "-reverse" : ""),
                "ZkMultiLock",
                "InterProcessMultiLock",
                count + (count == 1 ? " path" : " paths") + (reverse ? " in reverse order" : ""),
                count,
                (client, path) -> new ZkMultiLock(client, ordered(lockPaths(path, count), reverse)),
                (client, path) -> new InterProcessMultiLock(client, ordered(lockPaths(path, count), reverse)),
                false,
                1,
                false);
    }

    /** Returns the title of the recipe's rows: "ZkReentrantLock vs InterProcessMutex". */
    String title() {
        return zklockName + " vs " + curatorName;
    }

    /**
     * Makes the lock of {@code side} on {@code path}; the raw floor's is a create and a delete on the raw handle, the
     * raw queues' the view's and the listing protocol on the raw handle, the JDK side's a fair {@code ReentrantLock}
     * that never calls ZooKeeper.
     */
    InterProcessLock make(Side side, CuratorFramework client, String path) {
        return switch (side) {
            case ZKLOCK -> zklock.make(client, path);
            case CURATOR -> curator.make(client, path);
            case RAW -> new RawFloorLock(client, path, false);
            case RAW_LISTED -> new RawFloorLock(client, path, true);
            case RAW_VIEW -> new RawViewQueueLock(client, path);
            case RAW_QUEUE -> new RawQueueLock(client, path, false);
            case JDK -> new JdkFairLock();
        };
    }

    /**
     * Returns the lock paths a lock made on {@code path} takes: the path itself, one child of it per path, or a
     * semaphore's {@code locks} and {@code leases}.
     */
    List<String> lockPaths(String path) {
        return semaphoreLayout ? List.of(path + "/locks", path + "/leases") : lockPaths(path, paths);
    }

    private static List<String> lockPaths(String path, int count) {
        if (count == 1) {
            return List.of(path);
        }
        List<String> children = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            children.add(path + "/" + i);
        }
        return List.copyOf(children);
    }

    private static List<String> ordered(List<String> paths, boolean reverse) {
        if (!reverse) {
            return paths;
        }
        List<String> reversed = new ArrayList<>(paths);
        Collections.reverse(reversed);
        return List.copyOf(reversed);
    }
}
