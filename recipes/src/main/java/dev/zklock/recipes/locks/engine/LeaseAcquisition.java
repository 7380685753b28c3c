package dev.zklock.recipes.locks.engine;

import java.util.Collections;
import java.util.List;
import java.util.function.IntSupplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The lease step of one semaphore acquire, taken while its internal mutex is held: a state machine that takes the
 * {@link Event}s of its runner and answers the next {@link Command}, as {@link Acquisition} does for a queue. It does no
 * I/O and reads no clock ({@code LeaseAcquisitionTest} walks its outcome tables without ZooKeeper). Entering, a lost
 * create and the ends are {@link StepMachine}'s, shared with the lock queues' {@link Acquisition}. Not thread-safe: a
 * runner confines it to one thread at a time.
 */
public final class LeaseAcquisition extends StepMachine {
    /*
     * Implementation notes. The layout and protocol are those of Curator's InterProcessSemaphoreV2: lease nodes are
     * protected EPHEMERAL_SEQUENTIAL children "_c_<uuid>-lease-<sequence>" of <path>/leases, made only by the holder of
     * the mutex at <path>/locks, which waits, still holding the mutex, until there are few enough leases.
     *
     * 1. Safety does not depend on the mutex: a lease holds once at most maxLeases - count nodes are ranked before its
     *    first node, read in a listing sent after its create. Of the holders at any moment, the one with the latest
     *    sequence listed after every other holder's node existed, and counted it: so holders never exceed maxLeases,
     *    whatever mix of zklock and Curator (which counts every child) holds them (SemaphoreInteropTest). Nodes ranked
     *    after ours are not counted: under the protocol there are none, and outside it they are not holders ahead of us.
     * 2. The mutex keeps the waiting live and fair: only its holder creates a lease and waits, so leases are granted in
     *    mutex order and no two waiters can each hold a node that keeps the other out (ZkSemaphoreTest).
     * 3. Our nodes are created on the session that holds the mutex, and only there; a reply, listing or wake-up on
     *    another session means both went with the old one: Restart, and take the mutex again (ZkSemaphoreTest).
     * 4. The create and the listing of the leases go out back to back: one round trip (RequestCountTest). The listing
     *    carries a child watch only when the runner expects to wait (its last lease acquire waited): a watch on a
     *    listing that holds must be removed (one request), a listing without one that must wait is sent again with one.
     * 5. While we wait the watch fires on any change of the leases. If one deletion would be enough, the listing that
     *    follows is sent without a watch (it holds unless the change was not a deletion before ours); otherwise with
     *    one. Every decision is made on a listing: a change event does not say which child changed.
     * 6. A lost create reply is found again by its protected prefix after a sync, on the same session only, and its
     *    owner checked; every end that is not "held" deletes our nodes, removes the watch and sweeps for a lost create;
     *    a create's reply that comes after the end gets its cleanup (AcquisitionTest's rules, LeaseAcquisitionTest).
     * 7. The deadline ends the step only where it would wait (LeaseAcquisitionTest, ZkSemaphoreTest).
     */

    private final long mutexSession;
    private final int count;
    private final IntSupplier maxLeases;
    private final boolean watchFirst;

    private boolean listingWatched; // the listing in flight sets a child watch
    private boolean watchPending; // a child watch is set and has not fired
    private int before; // nodes ranked before our first at the last listing
    private boolean waited; // the step had to wait at least once

    /**
     * @param leases the leases path of the semaphore
     * @param mutexSession the session that holds the internal mutex: our leases are made on it alone
     * @param count how many leases to take, at least 1
     * @param maxLeases the semaphore's lease count now (it may change: a shared count)
     * @param watchFirst whether the listing sent with the create sets a child watch (the caller expects to wait)
     */
    public LeaseAcquisition(LockPath leases, long mutexSession, int count, IntSupplier maxLeases, boolean watchFirst) {
        super(List.of(leases));
        this.mutexSession = mutexSession;
        this.count = count;
        this.maxLeases = maxLeases;
        this.watchFirst = watchFirst;
    }

    /** The session our leases must be made on. */
    public long mutexSession() {
        return mutexSession;
    }

    /** Tells whether the step had to wait for a lease to be returned (for the next acquire's first listing). */
    public boolean waited() {
        return waited;
    }

    @Override
    String nodeKind() {
        return "lease";
    }

    @Override
    Command createCommand() {
        listingWatched = watchFirst || waited;
        return new Command.CreateLeases(prefix, count, listingWatched);
    }

    @Override
    Command onWait(Event event) {
        if (event instanceof Event.Listed listed) {
            if (phase != Phase.LISTING) {
                expect(Phase.ENTERING, event);
            }
            return listed(listed.sessionId(), listed.children().get(0));
        }
        if (event instanceof Event.Woken woken) {
            return woken(woken.wake());
        }
        if (event instanceof Event.CountChanged) {
            return phase == Phase.WAITING ? decide() : new Command.Await();
        }
        throw new AssertionError("unknown event " + event + " in lease phase " + phase);
    }

    @Override
    Command failedWaiting(Code code, boolean retryable) {
        if (phase == Phase.ENTERING || phase == Phase.LISTING) {
            return retryable ? list(true) : giveUp(listingFailure(code));
        }
        throw new AssertionError("failure " + code + " in lease phase " + phase);
    }

    @Override
    Command otherSession() {
        return restart(); // a node made on the ended session went with it, and so did the mutex
    }

    @Override
    Command placeLost() {
        return restart(); // some of our leases were deleted: give back the rest, and take the mutex again
    }

    @Override
    boolean mayOwn(long sessionId) {
        return sessionId == mutexSession;
    }

    @Override
    int nodesIn(int path) {
        return count;
    }

    @Override
    Command entered(long sessionId, List<List<String>> listings) {
        listingWatched = false;
        return listed(sessionId, listings.get(0));
    }

    @Override
    RuntimeException listingFailure(Code code) {
        LockPath leases = paths.get(0);
        return leases.failure("list the leases", KeeperException.create(code, leases.path()), true);
    }

    private Command listed(long sessionId, List<String> children) {
        if (listingWatched) {
            watchPending = true; // set by the listing even if what it says ends the step
        }
        if (sessionId != mutexSession || !hasAllOurs(children)) {
            return restart();
        }
        before = rankedBefore(children);
        return decide();
    }

    /** Decides on the last listing, with the lease count as it is now. */
    private Command decide() {
        int max = maxLeases.getAsInt();
        if (before + count <= max) {
            phase = Phase.HELD;
            List<LockNode> ours = nodes();
            return new Command.Granted(ours, Collections.nCopies(ours.size(), Boolean.FALSE));
        }
        if (deadlinePassed) {
            return giveUp(null);
        }
        waited = true;
        if (watchPending) {
            phase = Phase.WAITING;
            return new Command.Await();
        }
        return list(true);
    }

    private Command woken(NodeWatcher.Wake wake) {
        if (wake == NodeWatcher.Wake.SESSION_ENDED) {
            // Our leases and the mutex went with the session. The runner hears of the end as soon as it comes, also
            // while the listing that sets the watch is on its way (the simulator found this: the step threw here when
            // it expected WAITING only; LeaseAcquisitionTest).
            watchPending = false;
            return restart();
        }
        watchPending = false;
        if (phase != Phase.WAITING) {
            // The watch fired while a listing is on its way or due (a retry after a lost reply, a lost create's
            // recovery): that listing sees the change, and one that says wait sets a new watch (decide). The simulator
            // found this: the step threw here when it expected WAITING only (seeds 19,376 and about 30,600 with views).
            return new Command.Await();
        }
        int missing = before + count - maxLeases.getAsInt();
        return list(missing > 1);
    }

    private Command list(boolean watch) {
        phase = Phase.LISTING;
        listingWatched = watch && !watchPending;
        return new Command.ListLeases(listingWatched);
    }

    private boolean hasAllOurs(List<String> children) {
        for (LockNode node : nodes()) {
            if (!children.contains(node.name())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Counts the children that rank before our first node: every other child, but those whose sequence is larger
     * (a name without a sequence counts, as Curator counts every child).
     */
    private int rankedBefore(List<String> children) {
        String first = NodeNames.sortBySequence(
                        nodes().stream().map(LockNode::name).toList())
                .get(0);
        String ourKey = NodeNames.sequenceKey(first);
        int ranked = 0;
        for (String child : children) {
            if (isOurs(child)) {
                continue;
            }
            String key = NodeNames.sequenceKey(child);
            boolean after = !key.equals(child) && key.length() == ourKey.length() && key.compareTo(ourKey) > 0;
            if (!after) {
                ranked++;
            }
        }
        return ranked;
    }

    private boolean isOurs(String child) {
        for (LockNode node : nodes()) {
            if (node.name().equals(child)) {
                return true;
            }
        }
        return false;
    }
}
