package dev.zklock.recipes.locks.holds;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.ZkLockException;
import dev.zklock.recipes.locks.ZkMultiLock;
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
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Several arbitrary {@link InterProcessLock}s taken as one, the {@link ZkMultiLock} over locks: zklock locks in path
 * order, others in the order given; a failure while acquiring stops at once and releases what was taken, in reverse;
 * release goes on past a failing member and reports every failure. Internal to zklock, not API; it may change or go
 * without notice.
 *
 * <p>Immutable and safe for use by multiple threads; each member keeps its own ownership rules (so what a thread took,
 * it releases). Cost: an acquire costs the sum of the members' acquires, a release the sum of their releases, one
 * member after another; {@link #paths()}, {@link #members()} and a hold's tokens and state make no ZooKeeper call.
 */
public final class MemberLocks implements MultiLockMembers {
    /**
     * A zklock lock among the members, as the multi-lock sees it: its lock path, and the fencing token of the current
     * thread's hold of it (read when the multi-lock's tokens are asked for, on the holding thread; no ZooKeeper call).
     */
    public record ZkMember(String path, LongSupplier fencingToken) {
        /** Checks that neither part is null. */
        public ZkMember {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(fencingToken, "fencingToken");
        }
    }

    private final List<InterProcessLock> members;
    private final Function<InterProcessLock, Optional<ZkMember>> zklock;

    /**
     * Takes {@code locks} as members; zklock locks are put in path order when every member is one. No ZooKeeper call.
     *
     * @param locks the locks to take as one, not empty, no element null
     * @param zklock tells a zklock lock (its path and fencing token) from any other lock (empty)
     * @throws IllegalArgumentException if {@code locks} is empty
     * @throws NullPointerException if an element of {@code locks} is null, naming its index
     */
    public MemberLocks(List<? extends InterProcessLock> locks, Function<InterProcessLock, Optional<ZkMember>> zklock) {
        Checks.requireArgument(!locks.isEmpty(), "a multi-lock needs at least one lock, got none");
        this.zklock = Objects.requireNonNull(zklock, "zklock");
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

    /** Returns the members in the order they are taken. No ZooKeeper call. */
    public List<InterProcessLock> members() {
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
    private void releaseAll(List<InterProcessLock> taken) {
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
            zklock.apply(member)
                    .ifPresent(zk -> tokens.put(zk.path(), zk.fencingToken().getAsLong()));
        }
        return tokens;
    }

    private boolean acquireOne(InterProcessLock member, Deadline deadline) throws InterruptedException {
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

    private Optional<String> pathOf(InterProcessLock lock) {
        return zklock.apply(lock).map(ZkMember::path);
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
