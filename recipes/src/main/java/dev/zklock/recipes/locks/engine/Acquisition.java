package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockQueueView;
import dev.zklock.recipes.locks.ZkLockException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The algorithm of one acquisition, of one lock queue or of several taken as one: a state machine that takes the
 * {@link Event}s of its runner (replies, watch events, the deadline) and answers the next {@link Command}. It does no
 * I/O and reads no clock, so every runner (blocking on the caller's thread, or with callbacks) shares it, and its
 * outcome tables are plain unit tests ({@code AcquisitionTest}). Not thread-safe: a runner confines it to one thread
 * at a time.
 */
public final class Acquisition {
    /*
     * Implementation notes.
     *
     * 1. Entering costs one round trip: the create of our protected EPHEMERAL_SEQUENTIAL node (one transaction for
     *    several queues) and the listing of every queue are sent back-to-back on one session. ZooKeeper answers one
     *    session's requests in order, so the listing already holds our node (PipelinedListingTest). All nodes of a
     *    multi-lock enter at one point of ZooKeeper's total order, so two multi-locks are in the same order in every
     *    queue they share and cannot wait for each other in a cycle (ZkMultiLockTest).
     * 2. Each listing is turned into a Verdict at once and then dropped: holds, or the one node to watch plus what
     *    its deletion would mean. A waiter keeps a few words, whatever the queue's length.
     * 3. Waiting: a data-read watch on the one node the driver names (on a node already gone the read fails with
     *    NONODE and leaves no watch). When that node goes: if the driver holds without it, the lock is ours with no
     *    further request (sequence numbers only grow, and the driver is monotone: RequestCountTest,
     *    AcquisitionTest); likewise if it held from the front in this process, for the view without everything up
     *    to it; a driver that asked to list again (a Curator downgrade may put a node ahead of ours:
     *    ReadWriteInteropTest) lists; otherwise one listing, because a node ahead may have given up rather than
     *    released. Earlier nodes are never checked one by one.
     * 4. Several queues are waited on one after another in their (sorted) order: holding is monotone, so a queue that
     *    held stays held, and the verdicts read at entry stay usable for the later queues.
     * 5. A create whose reply was lost is found again by its protected prefix, after a sync, on the same session only:
     *    a node made on an ended session is not ours, nor one our session does not own (CreateRecoveryTest). A listing
     *    without our node, or on another session, means our place is lost: our nodes are deleted and we enter again
     *    at the back under a fresh prefix (SessionFaultsTest).
     * 6. The deadline ends the acquisition only where it would wait (a watch, or a connection): a request already
     *    sent is answered, so a zero or negative timeout makes one whole try, for every runner (AcquisitionTest,
     *    AsyncAcquireTest).
     * 7. Every end that is not "held" (timeout, interrupt, cancel, error) deletes our nodes, removes our watch, sweeps
     *    for a create whose reply was lost, and answers a create's reply that comes after the end with its cleanup
     *    (AsyncAcquireTest, CreateRecoveryTest, AcquisitionTest).
     */
    private static final Logger logger = LoggerFactory.getLogger(Acquisition.class);

    /** Where the acquisition is; the event it expects next follows from it. */
    public enum Phase {
        /** Our create is sent (with the listing pipelined behind it), or about to be. */
        CREATING,
        /** Our nodes exist; the listing sent with the create is awaited. */
        ENTERING,
        /** The lock paths are being made. */
        MAKING_PARENTS,
        /** A create's reply was lost; the queues are listed to find its node. */
        RECOVERING,
        /** A node found by our prefix is checked for its owner. */
        CHECKING_OWNER,
        /** The current queue is listed. */
        LISTING,
        /** The watch on the node ahead is being set. */
        WATCHING,
        /** The watch is set: waiting for it to fire. */
        WAITING,
        /** Our lost place is being deleted before we enter again. */
        DELETING,
        /** The end: the lock is held. */
        HELD,
        /** The end without the lock; late replies get their cleanup. */
        OVER
    }

    private final List<LockPath> queues;
    private final String alongsideSequence;
    private final Verdict[] verdicts;

    private Phase phase = Phase.CREATING;
    private String prefix;
    private String lostCreate; // the prefix of a create whose reply was lost, until found or known absent
    private List<LockNode> nodes = List.of(); // ours, one per queue, once entered
    private List<String> found; // the names a recovery found by our prefix, one per queue, until their owner is checked
    private List<List<String>> recovered; // the listings they were found in
    private int current; // the queue waited on
    private boolean deadlinePassed;
    private boolean createInFlightAtEnd; // the acquisition gave up while its create was on its way

    /**
     * @param queues the queues to enter together, in the order to wait on them
     * @param alongsideSequence null for nodes in the queue's order; else the sequence of a node of ours that holds,
     *     which one plain ephemeral node carries and holds beside (a downgrade)
     */
    public Acquisition(List<LockPath> queues, String alongsideSequence) {
        this.queues = List.copyOf(queues);
        this.alongsideSequence = alongsideSequence;
        this.verdicts = new Verdict[queues.size()];
    }

    /** Returns the first command: create our nodes. */
    public Command start() {
        prefix = queues.get(0).newPrefix();
        return create();
    }

    public Phase phase() {
        return phase;
    }

    /** Returns the name of our node in queue {@code queue}; we have entered. */
    public String ourNode(int queue) {
        return nodes.get(queue).name();
    }

    /** Returns the answer to {@code event}. */
    public Command on(Event event) {
        if (phase == Phase.OVER || phase == Phase.HELD) {
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
            nodes = List.copyOf(created.nodes());
            phase = Phase.ENTERING;
            return new Command.Await();
        }
        if (event instanceof Event.Listed listed) {
            return listed(listed);
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
        if (event instanceof Event.WatchSet) {
            expect(Phase.WATCHING, event);
            phase = Phase.WAITING;
            return deadlinePassed ? giveUp(null) : new Command.Await();
        }
        if (event instanceof Event.WatchedGone gone) {
            expect(Phase.WATCHING, event);
            return watchedGone(gone.fromFront());
        }
        if (event instanceof Event.Woken woken) {
            expect(Phase.WAITING, event);
            return woken(woken.wake());
        }
        if (event instanceof Event.Deleted) {
            expect(Phase.DELETING, event);
            prefix = queues.get(0).newPrefix();
            return create();
        }
        throw new AssertionError("unknown event " + event);
    }

    /**
     * Ends the acquisition without the lock (interrupt, cancel, an error of the runner): returns what to clean up, or
     * {@link Command.Await} if it had ended already.
     *
     * @param failure the error, or null for an interrupt or a cancel
     */
    public Command abandon(RuntimeException failure) {
        if (phase == Phase.OVER || phase == Phase.HELD) {
            return new Command.Await();
        }
        return giveUp(failure);
    }

    private Command create() {
        phase = Phase.CREATING;
        return new Command.Create(prefix, alongsideSequence);
    }

    /**
     * A reply or event after the end: a create that was in flight when the acquisition gave up is cleaned up (what it
     * made is deleted; if its reply was lost, its prefix is swept for); nothing else matters.
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
            return new Command.CleanUp(List.of(), isRetryable(failed.code()) ? prefix : null);
        }
        return new Command.Await();
    }

    private Command failed(Code code) {
        boolean retryable = isRetryable(code);
        switch (phase) {
            case CREATING -> {
                if (code == Code.NONODE) {
                    phase = Phase.MAKING_PARENTS;
                    return new Command.MakeParents();
                }
                if (retryable) {
                    lostCreate = prefix;
                    return recover();
                }
                return giveUp(queues.get(0).failure("create a lock node", KeeperException.create(code), true));
            }
            case ENTERING -> {
                return retryable ? listCurrent() : giveUp(listingFailure(code));
            }
            case LISTING -> {
                return retryable ? listCurrent() : giveUp(listingFailure(code));
            }
            case RECOVERING, CHECKING_OWNER -> {
                return retryable ? recover() : giveUp(listingFailure(code));
            }
            case WATCHING -> {
                if (retryable) {
                    return watch(verdicts[current]);
                }
                String node = verdicts[current].watch();
                return giveUp(
                        queues.get(current).failure("watch node " + node, KeeperException.create(code, node), true));
            }
            case MAKING_PARENTS -> {
                return giveUp(queues.get(0).failure("create the lock path", KeeperException.create(code), true));
            }
            default -> throw new AssertionError("failure " + code + " in phase " + phase);
        }
    }

    private ZkLockException listingFailure(Code code) {
        LockPath queue = queues.get(current);
        return queue.failure("list the queue", KeeperException.create(code, queue.path()), true);
    }

    private Command listed(Event.Listed listed) {
        if (phase == Phase.LISTING) {
            List<String> children = listed.children().get(0);
            if (children == null) {
                return listCurrent();
            }
            if (!holdsPlace(listed.sessionId(), children, current)) {
                return lostPlace();
            }
            verdicts[current] = decide(current, children);
            return advance();
        }
        expect(Phase.ENTERING, listed);
        return entered(listed.sessionId(), listed.children());
    }

    /** Decides every queue on the listings read on entry; a queue whose listing failed is listed when its turn comes. */
    private Command entered(long sessionId, List<List<String>> listings) {
        for (int i = 0; i < queues.size(); i++) {
            List<String> children = listings.get(i);
            if (children != null && !holdsPlace(sessionId, children, i)) {
                return lostPlace();
            }
            verdicts[i] = children == null ? null : decide(i, children);
        }
        current = 0;
        return advance();
    }

    /** Goes on from the current queue: past those that hold, to the first that needs a listing or a wait. */
    private Command advance() {
        while (current < queues.size()) {
            Verdict verdict = verdicts[current];
            if (verdict == null) {
                return listCurrent();
            }
            if (!verdict.holds()) {
                return deadlinePassed ? giveUp(null) : watch(verdict);
            }
            current++;
        }
        phase = Phase.HELD;
        List<Boolean> front = new ArrayList<>(verdicts.length);
        for (Verdict verdict : verdicts) {
            front.add(verdict.front());
        }
        return new Command.Granted(nodes, Collections.unmodifiableList(front));
    }

    private Command listCurrent() {
        phase = Phase.LISTING;
        verdicts[current] = null;
        return new Command.ListQueue(current);
    }

    private Command watch(Verdict verdict) {
        phase = Phase.WATCHING;
        return new Command.Watch(current, verdict.watch());
    }

    private Command watchedGone(boolean fromFront) {
        Verdict verdict = verdicts[current];
        if (verdict.holdsWithout()) {
            verdicts[current] = Verdict.held(verdict.frontWithout());
            return advance();
        }
        if (fromFront && verdict.holdsAfterFront()) {
            verdicts[current] = Verdict.held(verdict.frontAfterFront());
            return advance();
        }
        return listCurrent();
    }

    private Command woken(NodeWatcher.Wake wake) {
        return switch (wake) {
            case DELETED -> watchedGone(false);
            case DELETED_FROM_FRONT -> watchedGone(true);
            case CHANGED -> watch(verdicts[current]); // a data change spends the watch: set it again
            case SESSION_ENDED -> listCurrent(); // our own node may be gone: the listing tells
        };
    }

    private Command recover() {
        phase = Phase.RECOVERING;
        return new Command.Recover(prefix);
    }

    private Command recoveryListed(Event.RecoveryListed listing) {
        if (!listing.sameSession()) {
            return enterUnderFreshPrefix(); // a node made on the ended session went with it
        }
        String[] found = new String[queues.size()];
        int count = 0;
        for (int i = 0; i < queues.size(); i++) {
            List<String> children = listing.children().get(i);
            if (children == null) {
                return recover(); // a listing failed on the way: look again
            }
            for (String child : children) {
                if (child.startsWith(prefix)) {
                    found[i] = child;
                    count++;
                    break;
                }
            }
        }
        if (count == 0) {
            lostCreate = null; // after a sync, no node bears our prefix: the create made nothing
            return create();
        }
        if (count < queues.size()) {
            return recover(); // the transaction is atomic: a listing read mid-way; look again
        }
        this.found = Arrays.asList(found);
        recovered = listing.children();
        phase = Phase.CHECKING_OWNER;
        return new Command.CheckOwner(0, found[0]);
    }

    private Command ownerChecked(Event.OwnerChecked checked) {
        List<String> names = found;
        found = null;
        if (!checked.owned()) {
            // Gone meanwhile, or another session's node that bears our protection id: not ours. Enter afresh.
            recovered = null;
            return enterUnderFreshPrefix();
        }
        List<LockNode> found = new ArrayList<>();
        for (int i = 0; i < queues.size(); i++) {
            found.add(new LockNode(queues.get(i), names.get(i), checked.czxid(), checked.sessionId()));
        }
        nodes = List.copyOf(found);
        lostCreate = null;
        logger.debug("{}: found {} after a lost create reply", queues.get(0).path(), nodes);
        List<List<String>> listings = recovered;
        recovered = null;
        phase = Phase.ENTERING;
        return entered(checked.sessionId(), listings);
    }

    private Command enterUnderFreshPrefix() {
        lostCreate = null;
        prefix = queues.get(0).newPrefix();
        return create();
    }

    /** Our place was lost (session ended, or our node deleted): delete what may be left of it, then enter again. */
    private Command lostPlace() {
        logger.warn(
                "{}: lost our place {} while waiting; entering the queue again",
                queues.get(0).path(),
                nodes);
        List<LockNode> lost = nodes;
        nodes = List.of();
        Arrays.fill(verdicts, null);
        current = 0;
        phase = Phase.DELETING;
        return new Command.Delete(lost);
    }

    private Command giveUp(RuntimeException failure) {
        createInFlightAtEnd = phase == Phase.CREATING;
        phase = Phase.OVER;
        List<LockNode> ours = nodes;
        nodes = List.of();
        // A node found by our prefix whose owner is not checked yet is left to the sweep of that prefix.
        return new Command.GiveUp(ours, lostCreate, failure);
    }

    private boolean holdsPlace(long sessionId, List<String> children, int queue) {
        LockNode ours = nodes.get(queue);
        return ours.sessionId() == sessionId && children.contains(ours.name());
    }

    private Verdict decide(int queue, List<String> children) {
        LockPath lockPath = queues.get(queue);
        LockQueueView view = lockPath.view(children, nodes.get(queue).name());
        if (alongsideSequence != null) {
            return Verdict.held(view.ourIndex() == 0); // the caller holds the node we rank with
        }
        LockDecision decision = lockPath.decide(view);
        if (decision.holdsLock()) {
            return Verdict.held(view.ourIndex() == 0);
        }
        String watched = decision.nodeToWatch();
        if (decision.relistsWhenGone()) {
            return new Verdict(false, false, watched, false, false, false, false);
        }
        LockQueueView without = without(view, watched);
        LockQueueView afterFront = withoutUpTo(view, watched);
        return new Verdict(
                false,
                false,
                watched,
                lockPath.decide(without).holdsLock(),
                without.ourIndex() == 0,
                lockPath.decide(afterFront).holdsLock(),
                afterFront.ourIndex() == 0);
    }

    /** Returns {@code view} with {@code node}, a child ranked before ours, taken out. */
    private static LockQueueView without(LockQueueView view, String node) {
        List<String> rest = new ArrayList<>(view.children());
        rest.remove(node);
        return LockQueueView.of(view.lockPath(), rest, view.ourNode());
    }

    /** Returns {@code view} without {@code node}, a child ranked before ours, and every child ranked before it. */
    private static LockQueueView withoutUpTo(LockQueueView view, String node) {
        List<String> children = view.children();
        return LockQueueView.of(
                view.lockPath(), children.subList(children.indexOf(node) + 1, children.size()), view.ourNode());
    }

    private void expect(Phase expected, Event event) {
        if (phase != expected) {
            throw new AssertionError("event " + event + " in phase " + phase + ", expected " + expected);
        }
    }

    public static boolean isRetryable(Code code) {
        return code == Code.CONNECTIONLOSS
                || code == Code.OPERATIONTIMEOUT
                || code == Code.SESSIONEXPIRED
                || code == Code.SESSIONMOVED
                || code == Code.REQUESTTIMEOUT;
    }

    /**
     * What one listing of one queue said, kept instead of the listing: holds (and whether from the front, with no node
     * ranked before ours), or the node to watch and what its deletion would mean without a new listing.
     *
     * @param holds our node holds the lock
     * @param front it holds with no node ranked before it
     * @param watch the node to watch, when it does not hold
     * @param holdsWithout the driver holds once the watched node is gone (it was the only node blocking ours)
     * @param frontWithout ... and then no node is ranked before ours
     * @param holdsAfterFront the driver holds once the watched node and every node before it are gone (it had held
     *     from the front)
     * @param frontAfterFront ... and then no node is ranked before ours
     */
    public record Verdict(
            boolean holds,
            boolean front,
            String watch,
            boolean holdsWithout,
            boolean frontWithout,
            boolean holdsAfterFront,
            boolean frontAfterFront) {
        static Verdict held(boolean front) {
            return new Verdict(true, front, null, false, false, false, false);
        }
    }
}
