package dev.zklock.spring;

import dev.zklock.recipes.locks.KeyedLocks;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;

/**
 * The locks a {@link ZkSpringLockRegistry} keeps, by path, and the bounds that let go of them: a lock in use (held,
 * acquiring, or its cohort may keep an idle node) is always kept; an unused one for the idle time after its last use,
 * and only within the capacity (least recently used first). zklock's {@link KeyedLocks} keeps them and sweeps on the
 * timer of the client's zklock context; a lock let go of stays its key's while anything refers to it. Safe for use by
 * multiple threads. No ZooKeeper call.
 */
final class LockCache implements AutoCloseable {
    /** In use: held, acquiring, or its cohort may keep an idle node; used when last locked or unlocked. */
    private static final KeyedLocks.Usage<ZkSpringLock> USAGE = new KeyedLocks.Usage<>() {
        @Override
        public boolean inUse(ZkSpringLock lock, long nowNanos) {
            return lock.isInUse(nowNanos);
        }

        @Override
        public long lastUsedNanos(ZkSpringLock lock) {
            return lock.lastUsedNanos();
        }
    };

    private final KeyedLocks<ZkSpringLock> locks;
    private volatile Duration idleTime;
    private volatile int capacity;

    LockCache(CuratorFramework client, Duration idleTime, int capacity) {
        this.locks = new KeyedLocks<>(client, idleTime, USAGE);
        locks.capacity(capacity);
        this.idleTime = idleTime;
        this.capacity = capacity;
    }

    /** Returns the lock of {@code path}, made by {@code factory} if the path has none that can still be used. */
    ZkSpringLock obtain(String path, Function<? super String, ? extends ZkSpringLock> factory) {
        return locks.obtain(path, factory);
    }

    /** Returns the lock of {@code path} if there is one, or null. */
    ZkSpringLock find(String path) {
        return locks.find(path);
    }

    /** Lets go of the unused locks not used for {@code ageMillis}; zero or negative: of every unused lock. */
    void forgetUnused(long ageMillis) {
        locks.forgetUnused(TimeUnit.MILLISECONDS.toNanos(ageMillis)); // saturates: any age is an age
    }

    /**
     * Sets the idle time, from the next sweep on.
     *
     * @throws NullPointerException if {@code idleTime} is null
     * @throws IllegalArgumentException if {@code idleTime} is negative
     */
    void idleTime(Duration idleTime) {
        locks.idleTime(idleTime);
        this.idleTime = idleTime;
    }

    Duration idleTime() {
        return idleTime;
    }

    /**
     * Sets the capacity.
     *
     * @throws IllegalArgumentException if {@code capacity} is less than 1
     */
    void capacity(int capacity) {
        locks.capacity(capacity);
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** How many locks are kept now. */
    int size() {
        return locks.size();
    }

    /** How many keys are known now: those kept, and those let go of and not yet collected. */
    int keys() {
        return locks.keys();
    }

    /** Stops the sweeps on the timer; {@link #forgetUnused(long)} still lets go. */
    @Override
    public void close() {
        locks.close();
    }
}
