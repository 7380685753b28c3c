package dev.zklock.recipes.locks.holds;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.engine.Deadline;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a {@link ZkMultiLock} takes its locks as one: over lock paths, every node in one transaction ({@link MultiQueue}),
 * or over arbitrary locks, one after another ({@link MemberLocks}). Internal to zklock, not API; it may change or go
 * without notice.
 *
 * <p>Implementations are safe for use by multiple threads; what one thread took is its {@link Taken}. Cost: each
 * implementation states what an acquire and a release cost in ZooKeeper round trips; {@link #paths()} and
 * {@link Taken#state()} and {@link Taken#tokens()} make none.
 */
public interface MultiLockMembers {
    /**
     * Takes every lock before the deadline, or nothing.
     *
     * @return what was taken, or empty if the deadline passed first (nothing is left held)
     */
    Optional<Taken> acquire(Deadline deadline) throws InterruptedException;

    /** Returns the lock paths taken, in the order they are taken (zklock members only, over locks). */
    List<String> paths();

    /** What one acquisition of a multi-lock took: released as one. */
    interface Taken {
        /** Returns the worst state of the holds (LOST before IN_DOUBT before HELD). No ZooKeeper call. */
        LockState state();

        /** Returns the fencing token of each lock path taken, in path order. No ZooKeeper call. */
        Map<String, Long> tokens();

        /** Releases everything taken, going on past failures; throws the first with the others suppressed. */
        void release();
    }
}
