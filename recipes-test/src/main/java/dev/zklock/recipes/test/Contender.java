package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One lock object as a workload drives it: acquire with a timeout, say what is held, release. Made by a
 * {@link LockKind}; the chaos workload records what {@link #acquire} returns in a {@link SafetyMonitor}.
 *
 * <p>Thread safety is the lock's: a contender of a kind whose ownership is per thread
 * ({@link LockKind#isOwnedPerThread()}) may be shared by the threads of one client; any other is confined to one thread.
 */
public interface Contender {
    /**
     * Returns the lock paths this contender holds when it holds: one for a plain lock, several for a multi-lock.
     *
     * @return the paths, in the order the claims come
     */
    List<String> lockPaths();

    /**
     * Acquires the lock for the current thread if it becomes free within {@code timeout}, and says what is held.
     *
     * @param timeout the longest time to wait; zero makes a single try
     * @return empty if the time ran out; otherwise the claims now held, one per path, or an empty list if the hold was
     *     lost before it could be identified (its session ended, or its node is gone): release it all the same
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws Exception whatever the lock throws when ZooKeeper fails it
     */
    Optional<List<SafetyMonitor.Claim>> acquire(Duration timeout) throws Exception;

    /**
     * Releases the hold of the current thread.
     *
     * @throws Exception whatever the lock throws
     */
    void release() throws Exception;
}
