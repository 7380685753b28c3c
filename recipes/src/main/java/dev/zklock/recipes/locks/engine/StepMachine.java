package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every state machine of the engine does the same way, whatever it waits for: the create of our nodes, a create
 * whose reply was lost, the deadline, and the ends. {@link Acquisition} waits in lock queues for the node ahead, and
 * {@link LeaseAcquisition} in a semaphore's leases for few enough leases; both enter, recover and leave here. It does no
 * I/O and reads no clock. Not thread-safe: a runner confines it to one thread at a time.
 */
abstract class StepMachine {
    /*
     * Implementation notes.
     *
     * 1. A create whose reply was lost is found again by its protected prefix, after a sync, on the same session only:
     *    a node made on an ended session is not ours, nor one our session does not own (CreateRecoveryTest). The
     *    create is atomic (one transaction for several nodes), and so is the listing (one read of every path), so a
     *    listing that finds some of our nodes but not all shows that the others were deleted since: our place is lost
     *    (AcquisitionTest, LeaseAcquisitionTest).
     * 2. The deadline ends the machine only where it would wait (a watch, or a connection): a request already sent is
     *    answered, so a zero or negative timeout makes one whole try, for every runner (AcquisitionTest,
     *    AsyncAcquireTest, LeaseAcquisitionTest). No reply is waited for without bound: the blocking runner waits for
     *    each until the deadline but at least one request timeout (then it is lost: CONNECTIONLOSS), and the callback
     *    runners tell the machine TimedOut one request timeout after the deadline, which ends it wherever it is; what
     *    it made is cleaned up as for any end (AcquireBoundsTest). A create's reply lost once the deadline has passed is
     *    not looked for in the foreground: the end's sweep finds what it made.
     * 3. Every end that is not "held" (timeout, interrupt, cancel, error, a lost place that is not retried here)
     *    deletes our nodes, removes our watch, sweeps for a create whose reply was lost, and answers a create's reply
     *    that comes after the end with its cleanup (AsyncAcquireTest, CreateRecoveryTest, AcquisitionTest).
     */
    private static final Logger logger = LoggerFactory.getLogger(StepMachine.class);

    /** Where a machine is; the event it expects next follows from it. */
    public enum Phase {
        /** Our create is sent (with the listing pipelined behind it), or about to be. */
        CREATING,
        /** Our nodes exist; the listing sent with the create is awaited. */
        ENTERING,
        /** The parent paths are being made. */
        MAKING_PARENTS,
        /** A create's reply was lost; the paths are listed to find its nodes. */
        RECOVERING,
        /** A node found by our prefix is checked for its owner. */
        CHECKING_OWNER,
        /** A path is listed. */
        LISTING,
        /** The watch on the node ahead is being set (lock queues). */
        WATCHING,
        /** A watch is set: waiting for it to fire. */
        WAITING,
        /** Our lost place is being deleted before we enter again (lock queues). */
        DELETING,
        /** The end: the lock or the leases are held. */
        HELD,
        /** The end without them; late replies get their cleanup. */
        OVER
    }

    final List<LockPath> paths; // the paths our create makes nodes in, in create order

    Phase phase = Phase.CREATING;
    String prefix;
    private LockNode onlyNode; // ours when the create made one node: a waiting thread keeps no list of one
    private List<LockNode> manyNodes; // ours when it made several, in the order of the create
    boolean deadlinePassed;
    private Recovery recovery; // made when a create's reply is lost, until its nodes are found or known absent
    private boolean createInFlightAtEnd; // the machine gave up while its create was on its way

    /**
     * What a machine keeps while it looks for the nodes of a create whose reply was lost: one object made then, and a
     * word of a waiting thread's machine otherwise.
     */
    private static final class Recovery {
        private final String lostCreate; // the prefix of the lost create
        private List<String> found; // the names found by that prefix, in create order, until their owner is checked
        private List<Integer> foundIn; // the path of each
        private List<List<String>> listings; // the listings they were found in

        Recovery(String lostCreate) {
            this.lostCreate = lostCreate;
        }
    }

    /**
     * @param paths the paths our create makes nodes in, one listing each; the first names the machine in errors
     */
    StepMachine(List<LockPath> paths) {
        this.paths = List.copyOf(paths);
    }

    /** What a node is, for errors: "lock" or "lease" (a method, not a field: a waiting thread's machine is smaller). */
    abstract String nodeKind();

    /** Returns the first command: create our nodes. */
    public final Command start() {
        prefix = paths.get(0).newPrefix();
        return create();
    }

    public final Phase phase() {
        return phase;
    }

    /** Tells whether the machine has ended, held or not: what comes now is a late reply. */
    public final boolean isOver() {
        return phase == Phase.OVER || phase == Phase.HELD;
    }

    /** Returns the answer to {@code event}. */
    public final Command on(Event event) {
        if (isOver()) {
            return afterTheEnd(event);
        }
        if (event instanceof Event.DeadlinePassed) {
            deadlinePassed = true;
            return phase == Phase.WAITING ? giveUp(null) : new Command.Await();
        }
        if (event instanceof Event.TimedOut) {
            return giveUp(null);
        }
        if (event instanceof Event.Failed failed) {
            return failed(failed.code());
        }
        if (event instanceof Event.Created created) {
            expect(Phase.CREATING, event);
            setNodes(created.nodes());
            phase = Phase.ENTERING;
            prefix = null; // our nodes bear it: nothing looks for it any more, and each waiter keeps a string fewer
            return createdAlone() ? enteredUnlisted(created.ownPredecessor()) : new Command.Await();
        }
        if (event instanceof Event.ParentsMade) {
            expect(Phase.MAKING_PARENTS, event);
            return create();
        }
        if (event instanceof Event.RecoveryListed listing) {
            expect(Phase.RECOVERING, event);
            return recoveryListed(listing);
        }
        if (event instanceof Event.OwnerChecked checked) {
            expect(Phase.CHECKING_OWNER, event);
            return ownerChecked(checked);
        }
        return onWait(event);
    }

    /**
     * Ends the machine without what it takes (interrupt, cancel, an error of the runner): returns what to clean up, or
     * {@link Command.Await} if it had ended already.
     *
     * @param failure the error, or null for an interrupt or a cancel
     */
    public final Command abandon(RuntimeException failure) {
        return isOver() ? new Command.Await() : giveUp(failure);
    }

    /** The create of our nodes under {@link #prefix}, with the listing behind it. */
    abstract Command createCommand();

    /** Answers an event of entering and waiting: a listing, a watch's news, what else the machine waits for. */
    abstract Command onWait(Event event);

    /** Answers a failed request of entering and waiting (a listing, a watch). */
    abstract Command failedWaiting(Code code, boolean retryable);

    /** The recovery ran on another session than the create's: a node made on the ended one went with it. */
    abstract Command otherSession();

    /** Tells whether a found node owned by {@code sessionId} may be ours. */
    abstract boolean mayOwn(long sessionId);

    /** How many of our nodes a create makes in path {@code path}. */
    abstract int nodesIn(int path);

    /** The error of a listing that failed for good. */
    abstract RuntimeException listingFailure(Code code);

    /** Tells whether the create just answered was sent with no listing behind it; the machines that list say false. */
    boolean createdAlone() {
        return false;
    }

    /** Goes on from a create sent alone ({@link #createdAlone}), right behind {@code ownPredecessor} if not null. */
    Command enteredUnlisted(LockNode ownPredecessor) {
        throw new AssertionError("a " + nodeKind() + " create is always listed behind");
    }

    /** Goes on with our nodes found after a lost create reply, from the listings read after the sync. */
    abstract Command entered(long sessionId, List<List<String>> listings);

    final Command create() {
        phase = Phase.CREATING;
        return createCommand();
    }

    final Command enterUnderFreshPrefix() {
        recovery = null;
        prefix = paths.get(0).newPrefix();
        return create();
    }

    /** The end without what the machine takes: what to delete, and the prefix to sweep for. */
    final Command giveUp(RuntimeException failure) {
        createInFlightAtEnd = phase == Phase.CREATING;
        phase = Phase.OVER;
        // A node found by our prefix whose owner is not checked yet is left to the sweep of that prefix.
        return new Command.GiveUp(takeNodes(), lostCreate(), failure);
    }

    /** The end of a machine that lost its place and is not retried here: as {@link #giveUp}, to start over. */
    final Command restart() {
        createInFlightAtEnd = phase == Phase.CREATING;
        phase = Phase.OVER;
        return new Command.Restart(takeNodes(), lostCreate());
    }

    final List<LockNode> takeNodes() {
        List<LockNode> ours = nodes();
        onlyNode = null;
        manyNodes = null;
        return ours;
    }

    /** Our nodes, in the order of the create; none before it is answered or after they are taken. */
    final List<LockNode> nodes() {
        if (onlyNode != null) {
            return List.of(onlyNode);
        }
        return manyNodes == null ? List.of() : manyNodes;
    }

    /** Our node in the {@code index}th place of the create's order. */
    final LockNode node(int index) {
        if (onlyNode != null) {
            Objects.checkIndex(index, 1);
            return onlyNode;
        }
        return nodes().get(index);
    }

    private void setNodes(List<LockNode> ours) {
        onlyNode = ours.size() == 1 ? ours.get(0) : null;
        manyNodes = ours.size() == 1 ? null : List.copyOf(ours);
    }

    /** The prefix of a create whose reply was lost, until its nodes are found or known absent; else null. */
    private String lostCreate() {
        return recovery == null ? null : recovery.lostCreate;
    }

    final void expect(Phase expected, Event event) {
        if (phase != expected) {
            throw new AssertionError("event " + event + " in phase " + phase + ", expected " + expected);
        }
    }

    /**
     * A reply or event after the end: a create that was in flight when the machine gave up is cleaned up (what it made
     * is deleted; if its reply was lost, its prefix is swept for); nothing else matters.
     */
    private Command afterTheEnd(Event event) {
        if (phase != Phase.OVER || !createInFlightAtEnd) {
            return new Command.Await();
        }
        if (event instanceof Event.Created created) {
            createInFlightAtEnd = false;
            return new Command.CleanUp(created.nodes(), null);
        }
        if (event instanceof Event.Failed failed) {
            createInFlightAtEnd = false;
            return new Command.CleanUp(List.of(), Reply.isRetryable(failed.code()) ? prefix : null);
        }
        return new Command.Await();
    }

    private Command failed(Code code) {
        boolean retryable = Reply.isRetryable(code);
        return switch (phase) {
            case CREATING -> {
                if (code == Code.NONODE) {
                    phase = Phase.MAKING_PARENTS;
                    yield new Command.MakeParents();
                }
                if (retryable) {
                    recovery = new Recovery(prefix);
                    yield recoverInTime();
                }
                yield giveUp(
                        paths.get(0).failure("create a " + nodeKind() + " node", KeeperException.create(code), true));
            }
            case RECOVERING, CHECKING_OWNER -> retryable ? recoverInTime() : giveUp(listingFailure(code));
            case MAKING_PARENTS -> giveUp(
                    paths.get(0).failure("create the " + nodeKind() + " path", KeeperException.create(code), true));
            default -> failedWaiting(code, retryable);
        };
    }

    /**
     * Looks for the nodes of a create whose reply was lost, unless the deadline has passed: then the machine ends, and
     * the sweep of the lost create's prefix, which runs in the background, deletes what it made. A silent network
     * loses the reply only after a request timeout, and a recovery in the foreground would wait one more
     * (AcquireBoundsTest.acquire_onASilentPartitionWithTheCreateSent_endsWithinOneRequestTimeoutOfItsDeadline).
     */
    private Command recoverInTime() {
        return deadlinePassed ? giveUp(null) : recover();
    }

    private Command recover() {
        phase = Phase.RECOVERING;
        return new Command.Recover(prefix);
    }

    private Command recoveryListed(Event.RecoveryListed listing) {
        if (!listing.sameSession()) {
            return otherSession();
        }
        List<String> names = new ArrayList<>();
        List<Integer> where = new ArrayList<>();
        boolean partial = false;
        for (int i = 0; i < paths.size(); i++) {
            List<String> children = listing.children().get(i);
            if (children == null) {
                return recover(); // a listing failed on the way: look again
            }
            List<String> ours = new ArrayList<>();
            for (String child : children) {
                if (child.startsWith(prefix)) {
                    ours.add(child);
                }
            }
            partial |= ours.size() != nodesIn(i);
            for (String name : NodeNames.sortBySequence(ours)) {
                names.add(name);
                where.add(i);
            }
        }
        if (names.isEmpty()) {
            recovery = null; // after a sync, no node bears our prefix: the create made nothing
            return create();
        }
        if (partial) {
            return createPartlyGone(names, where);
        }
        recovery.found = names;
        recovery.foundIn = where;
        recovery.listings = listing.children();
        phase = Phase.CHECKING_OWNER;
        return new Command.CheckOwner(where.get(0), names.get(0));
    }

    /**
     * A recovery found some of our create's nodes but not all. The create is one transaction, and the recovery's
     * listing one read (a read-only transaction for several paths), so the create made them all and the missing ones
     * were deleted since by another process: our place is lost. What is left of it is deleted, and the machine enters
     * again or starts over. Looking again would find
     * the same thing for ever (the simulator's seed 1315: a stranger deleted one node of a multi-lock's create whose
     * reply was lost, and an acquire without a timeout listed without end).
     */
    private Command createPartlyGone(List<String> names, List<Integer> where) {
        List<LockNode> left = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            left.add(new LockNode(paths.get(where.get(i)), names.get(i), 0, 0));
        }
        logger.warn(
                "{}: {} of a create whose reply was lost were deleted meanwhile",
                paths.get(0).path(),
                prefix);
        setNodes(left);
        return placeLost();
    }

    /** Our nodes were deleted under us, or some of them: deletes what is left ({@link #nodes()}) and enters again. */
    abstract Command placeLost();

    private Command ownerChecked(Event.OwnerChecked checked) {
        List<String> names = recovery.found;
        List<Integer> where = recovery.foundIn;
        List<List<String>> listings = recovery.listings;
        recovery.found = null;
        recovery.foundIn = null;
        recovery.listings = null;
        if (!checked.owned() && checked.czxid() == 0 && names.size() > 1) {
            // The node checked was deleted since the listing; the others bear our prefix on our session, made by the
            // same transaction: ours, and our place is lost (the simulator: they were left, and the acquire waited
            // for ever behind its own node).
            return createPartlyGone(names.subList(1, names.size()), where.subList(1, where.size()));
        }
        if (!checked.owned() || !mayOwn(checked.sessionId())) {
            // Gone meanwhile, or another session's node that bears our protection id: not ours. Enter afresh.
            return enterUnderFreshPrefix();
        }
        List<LockNode> ours = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            ours.add(new LockNode(paths.get(where.get(i)), names.get(i), checked.czxid(), checked.sessionId()));
        }
        setNodes(ours);
        recovery = null;
        logger.debug("{}: found {} after a lost create reply", paths.get(0).path(), ours);
        phase = Phase.ENTERING;
        return entered(checked.sessionId(), listings);
    }
}
