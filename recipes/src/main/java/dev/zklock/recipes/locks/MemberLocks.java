package dev.zklock.recipes.locks;

import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Failures;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Several arbitrary {@link InterProcessLock}s taken as one, the {@link ZkMultiLock} over locks: zklock locks in path
 * order, others in the order given; a failure while acquiring stops at once and releases what was taken, in reverse;
 * release goes on past a failing member and reports every failure. Immutable and safe for use by multiple threads;
 * each member keeps its own ownership rules (so what a thread took, it releases).
 */
final class MemberLocks implements MultiLockMembers {
    private final List<InterProcessLock> members;

    MemberLocks(List<? extends InterProcessLock> locks) {
        Checks.requireArgument(!locks.isEmpty(), "a multi-lock needs at least one lock, got none");
        List<InterProcessLock> ordered = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            int index = i;
            InterProcessLock lock = Objects.requireNonNull(locks.get(i), () -> "locks[" + index + "]");
            ordered.add(lock);
        }
        if (ordered.stream().allMatch(lock -> pathOf(lock).isPresent())) {
            // A canonical order: two multi-locks over the same zklock locks never wait for each other in a cycle.
            ordered.sort(Comparator.comparing(lock -> pathOf(lock).orElseThrow()));
        }
        this.members = List.copyOf(ordered);
    }

    List<InterProcessLock> members() {
        return members;
    }

    /**
     * Acquires every member in order, each within what is left of the deadline; empty (and nothing held) if one timed
     * out. The members keep their own states and listeners.
     */
    @Override
    public Optional<Taken> acquire(Deadline deadline) throws InterruptedException {
        return acquireAll(deadline).map(MembersTaken::new);
    }

    @Override
    public List<String> paths() {
        List<String> paths = new ArrayList<>();
        members.forEach(member -> pathOf(member).ifPresent(paths::add));
        return List.copyOf(paths);
    }

    private Optional<List<InterProcessLock>> acquireAll(Deadline deadline) throws InterruptedException {
        List<InterProcessLock> taken = new ArrayList<>();
        try {
            for (InterProcessLock member : members) {
                if (!acquireOne(member, deadline)) {
                    releaseAll(taken);
                    return Optional.empty();
                }
                taken.add(member);
            }
            return Optional.of(List.copyOf(taken));
        } catch (InterruptedException | RuntimeException | Error e) {
            try {
                releaseAll(taken);
            } catch (RuntimeException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        }
    }

    /**
     * Releases {@code taken} in reverse order, going on past failures; throws the first failure with the others
     * suppressed.
     */
    static void releaseAll(List<InterProcessLock> taken) {
        Failures failures = new Failures();
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).release();
            } catch (Exception e) {
                RuntimeException unchecked = e instanceof RuntimeException runtime
                        ? runtime
                        : new ZkLockException(
                                "could not release member " + taken.get(i) + ": " + e,
                                pathOf(taken.get(i)).orElse(null),
                                false,
                                null,
                                e);
                failures.add(unchecked);
            }
        }
        failures.throwIfAny();
    }

    /** Returns the fencing tokens of the zklock members held by the current thread, by path. */
    private Map<String, Long> tokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (InterProcessLock member : members) {
            if (member instanceof ThreadOwnedLock owned) {
                tokens.put(owned.path(), owned.fencingToken());
            } else if (member instanceof ZkExclusiveLock exclusive) {
                tokens.put(exclusive.path(), exclusive.fencingToken());
            }
        }
        return tokens;
    }

    private static boolean acquireOne(InterProcessLock member, Deadline deadline) throws InterruptedException {
        try {
            if (deadline.isForever()) {
                member.acquire();
                return true;
            }
            return member.acquire(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ZkLockException(
                    "could not acquire member " + member + ": " + e,
                    pathOf(member).orElse(null),
                    true,
                    null,
                    e);
        }
    }

    static Optional<String> pathOf(InterProcessLock lock) {
        if (lock instanceof ThreadOwnedLock owned) {
            return Optional.of(owned.path());
        }
        if (lock instanceof ZkExclusiveLock exclusive) {
            return Optional.of(exclusive.path());
        }
        return Optional.empty();
    }

    /** The members one thread took: held while taken (each member keeps its own state). */
    private final class MembersTaken implements Taken {
        private final List<InterProcessLock> taken;

        MembersTaken(List<InterProcessLock> taken) {
            this.taken = taken;
        }

        @Override
        public LockState state() {
            return LockState.HELD;
        }

        @Override
        public Map<String, Long> tokens() {
            return MemberLocks.this.tokens();
        }

        @Override
        public void release() {
            releaseAll(taken);
        }
    }
}
