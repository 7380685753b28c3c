package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockQueueView;
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
 * outcome tables are plain unit tests ({@code AcquisitionTest}). Entering, a lost create and the ends are
 * {@link StepMachine}'s, shared with the semaphore's lease step. Not thread-safe: a runner confines it to one thread
 * at a time.
 */
public final class Acquisition extends StepMachine {
    /*
     * Implementation notes (and StepMachine's).
     *
     * 1. Entering costs one round trip: the create of our protected EPHEMERAL_SEQUENTIAL node (one transaction for
     *    several queues) and the listing of every queue are sent back-to-back on one session. ZooKeeper answers one
     *    session's requests in order, so the listing already holds our node (PipelinedListingTest). All nodes of a
     *    multi-lock enter at one point of ZooKeeper's total order, so two multi-locks are in the same order in every
     *    queue they share and cannot wait for each other in a cycle (ZkMultiLockTest).
     * 2. Each listing is turned into a ListingVerdict at once and then dropped: holds, or the one node to watch plus what
     *    its deletion would mean. A waiter keeps a few words, whatever the queue's length.
     * 3. Waiting: a data-read watch on the one node the driver names (on a node already gone the read fails with
     *    NONODE and leaves no watch). When that node goes: if the driver holds without it, the lock is ours with no
     *    further request (sequence numbers only grow, and the driver is monotone: RequestCountTest,
     *    AcquisitionTest); likewise if it held from the front in this process, for the view without everything up
     *    to it; a driver that asked to list again (a Curator downgrade may put a node ahead of ours:
     *    ReadWriteInteropTest) lists; otherwise one listing, because a node ahead may have given up rather than
     *    released. Earlier nodes are never checked one by one. A grant without a watched writer never counts as from
     *    the front: the writer may have downgraded after our listing, with a read node ranked before ours, and a
     *    writer of this process waiting behind us would take our release from the front as leave to skip that read
     *    node (AcquisitionTest, LockDriverQueueModelTest).
     * 4. Several queues are waited on one after another in their (sorted) order: holding is monotone, so a queue that
     *    held stays held, and the verdicts read at entry stay usable for the later queues.
     * 5. A listing without our node, or on another session, means our place is lost: our nodes are deleted and we
     *    enter again at the back under a fresh prefix (SessionFaultsTest).
     * 6. Behind a node of our own client the listing is left out: the listing of each waiter carries the whole queue, so
     *    N waiters of one client would read N^2 names. A sequence one more than that of a node this client made on the
     *    path, on the same session, proves that nothing was created between the two and that it still stood when ours
     *    was made (QueueTails). The driver decides on that node alone before ours: "not held" there is "not held" in the
     *    whole queue (removing nodes never turns holds into not), and it names that node to watch. Its deletion alone
     *    says nothing of the nodes before it (holdsWithout is false), but if it was released from the front, nothing
     *    stands before ours any more: the lock is ours with no request, and the chain goes on. When the driver would
     *    hold on that node alone (a reader behind a reader), or the node before ours is not ours, one listing decides.
     *    Whether the listing is sent behind the create is chosen when the create is sent, from a guess
     *    (listsBehindCreate); a wrong guess costs a round trip, never a request (AcquisitionTest, QueueTailsTest,
     *    OwnPredecessorTest).
     * 7. A grant with no listing needs a voucher for our own node: it may have been deleted from outside (an operator,
     *    a reaper, an open ACL) while we waited, and a waiter that trusted the delete of the node ahead alone would
     *    hold beside the session that queued after ours went. Where the node ahead's deletion could grant without a
     *    listing (holdsWithout, holdsAfterFront), the watch asks the runner to vouch: a data watch on our own node,
     *    sent right before the watch ahead on the same session (OwnNodeWatch: one read, no round trip of its own).
     *    News that comes unvouched lists the queue first; our own node found gone enters again (StrangerDeleteTest,
     *    AcquisitionTest).
     */
    private static final Logger logger = LoggerFactory.getLogger(Acquisition.class);

    private final Beside beside;
    private final ListingVerdict[]
            verdicts; // one per queue; null for one queue, whose verdict is kept in the two fields below
    private Object onlyWatch; // the one queue's verdict as its watched node (ListingVerdict.watched) and its flags: a
    private byte onlyFlags; // waiting thread keeps no verdict object (ListingVerdict.flags; 0: none)

    private int current; // the queue waited on
    private boolean createAlone; // the create on its way was sent with no listing behind it
    private boolean waited; // a watch was set: the queues held before it were last seen before the wait

    /**
     * The node of ours that a downgrade's read node ranks with: its sequence, and the session it (and so the read node)
     * must be on.
     *
     * @param sequence the sequence of the write node the read node carries
     * @param sessionId the write node's session
     */
    public record Beside(String sequence, long sessionId) {}

    /**
     * @param queues the queues to enter together, in the order to wait on them
     * @param beside null for nodes in the queue's order; else a node of ours that holds, whose sequence one plain
     *     ephemeral node carries and holds beside (a downgrade), on the same session
     */
    public Acquisition(List<LockPath> queues, Beside beside) {
        super(queues);
        this.beside = beside;
        this.verdicts = queues.size() == 1 ? null : new ListingVerdict[queues.size()];
    }

    /** Returns the name of our node in queue {@code queue}; we have entered. */
    public String ourNode(int queue) {
        return node(queue).name();
    }

    /** Returns our node in queue {@code queue}; we have entered. */
    public LockNode ourLockNode(int queue) {
        return node(queue);
    }

    /**
     * Tells whether the runner sends the listing behind the create it has just sent, given what of this client the
     * create is likely right behind; the machine reads the create's reply accordingly. No listing when one queue is
     * entered in its order, a node of ours is likely right ahead, and the driver would not hold behind that node alone:
     * the create's reply will then tell, if that node is right before ours, what to watch (implementation note 6).
     *
     * @param ownAhead the prefix or name of the node of this client the create is likely right behind, or null
     */
    public boolean listsBehindCreate(String ownAhead) {
        createAlone = ownAhead != null && paths.size() == 1 && beside == null && blockedBy(ownAhead);
        return !createAlone;
    }

    /** Tells whether a node named {@code ahead} (with or without its sequence) right before ours would block it. */
    private boolean blockedBy(String ahead) {
        boolean named = NodeNames.sequenceKey(ahead).length() == 10;
        String before = named ? ahead : ahead + "0000000000";
        String ours = named ? prefix + "9999999999" : prefix + "0000000001";
        LockPath queue = paths.get(0);
        return !queue.decide(queue.view(List.of(before, ours), ours)).holdsLock();
    }

    @Override
    boolean createdAlone() {
        return createAlone;
    }

    /**
     * Our node was made with no listing behind it: with a node of ours right before it, the driver decides on that node
     * alone; otherwise, or where that is not enough, one listing.
     */
    @Override
    Command enteredUnlisted(LockNode ownPredecessor) {
        createAlone = false;
        ListingVerdict verdict = ownPredecessor == null ? null : behindOwn(ownPredecessor);
        if (verdict == null) {
            return listCurrent();
        }
        logger.debug(
                "{}: {} is right behind {} of this client; no listing",
                paths.get(0).path(),
                nodes(),
                ownPredecessor);
        current = 0;
        setVerdict(0, verdict);
        return advance();
    }

    /**
     * The verdict behind {@code predecessor}, a node of this client right before ours with nothing created between, or
     * null if the driver needs the nodes before it too (it would hold behind that node alone). Watching that node, it
     * keeps the node's own path string, which ZooKeeper's watch table keys on too: no copy of its own.
     */
    private ListingVerdict behindOwn(LockNode predecessor) {
        LockPath lockPath = paths.get(0);
        String ours = node(0).name();
        String before = predecessor.name();
        LockQueueView view = lockPath.view(List.of(before, ours), ours);
        LockDecision decision = lockPath.decide(view);
        if (decision.holdsLock()) {
            return null;
        }
        String watched = decision.nodeToWatch();
        LockNode ahead = watched.equals(before) ? predecessor : null;
        String watchedPath = ahead != null ? ahead.fixedPath() : lockPath.fixedChild(watched);
        if (decision.relistsWhenGone()) {
            return new ListingVerdict(false, false, watchedPath, false, false, false, false, ahead);
        }
        LockQueueView afterFront = withoutUpTo(view, watched);
        // Unknown nodes may stand before the predecessor: its deletion alone is no grant, unless from the front.
        return new ListingVerdict(
                false,
                false,
                watchedPath,
                false,
                false,
                lockPath.decide(afterFront).holdsLock(),
                !NodeNames.isWriter(watched) && afterFront.ourIndex() == 0,
                ahead);
    }

    @Override
    Command createCommand() {
        return new Command.Create(prefix, beside == null ? null : beside.sequence());
    }

    @Override
    Command onWait(Event event) {
        if (event instanceof Event.Listed listed) {
            return listed(listed);
        }
        if (event instanceof Event.WatchSet) {
            expect(Phase.WATCHING, event);
            phase = Phase.WAITING;
            return deadlinePassed ? giveUp(null) : new Command.Await();
        }
        if (event instanceof Event.WatchedGone gone) {
            expect(Phase.WATCHING, event);
            return watchedGone(gone.fromFront(), gone.vouched());
        }
        if (event instanceof Event.Woken woken) {
            expect(Phase.WAITING, event);
            return woken(woken.wake(), woken.vouched());
        }
        if (event instanceof Event.OwnGone) {
            if (phase != Phase.WATCHING) {
                expect(Phase.WAITING, event);
            }
            return lostPlace();
        }
        if (event instanceof Event.Deleted) {
            expect(Phase.DELETING, event);
            return enterUnderFreshPrefix();
        }
        throw new AssertionError("unknown event " + event + " in phase " + phase);
    }

    @Override
    Command failedWaiting(Code code, boolean retryable) {
        switch (phase) {
            case ENTERING, LISTING -> {
                return retryable ? listCurrent() : giveUp(listingFailure(code));
            }
            case WATCHING -> {
                if (retryable) {
                    return watch(verdict(current));
                }
                String node = verdict(current).watch();
                return giveUp(
                        paths.get(current).failure("watch node " + node, KeeperException.create(code, node), true));
            }
            default -> throw new AssertionError("failure " + code + " in phase " + phase);
        }
    }

    @Override
    RuntimeException listingFailure(Code code) {
        LockPath queue = paths.get(current);
        return queue.failure("list the queue", KeeperException.create(code, queue.path()), true);
    }

    @Override
    Command otherSession() {
        return beside != null ? giveUp(besideLost()) : enterUnderFreshPrefix();
    }

    /**
     * A downgrade's read node on another session than its write node's: the write node went with its session, and a
     * read node that carries its sequence would rank ahead of the writers queued since. It gives up (found by the
     * simulator: a lost create reply, then expiry; AcquisitionTest).
     */
    private RuntimeException besideLost() {
        return new IllegalStateException(String.format(
                "the write hold that lock '%s' would be taken beside went with session 0x%s; release it first",
                paths.get(0).path(), Long.toHexString(beside.sessionId())));
    }

    /**
     * Tells whether the write node a downgrade's read node ranks with is in {@code children}: it may have been deleted by
     * another client while held, and a read node beside it would hold beside the writer queued since (found by the
     * simulator, seed 1354). True when nothing is taken beside a node.
     */
    private boolean besideStands(List<String> children) {
        if (beside == null) {
            return true;
        }
        for (String child : children) {
            if (NodeNames.isWriter(child) && NodeNames.sequenceKey(child).equals(beside.sequence())) {
                return true;
            }
        }
        return false;
    }

    private RuntimeException besideDeleted() {
        return new IllegalStateException(String.format(
                "the write hold that lock '%s' would be taken beside lost its node %s; release it first",
                paths.get(0).path(), beside.sequence()));
    }

    @Override
    boolean mayOwn(long sessionId) {
        return true; // the owner is read on the session of the create
    }

    @Override
    int nodesIn(int path) {
        return 1;
    }

    private Command listed(Event.Listed listed) {
        if (listed.refusal() != null) {
            return giveUp(LayoutGuard.exception(paths.get(0), listed.refusal()));
        }
        if (beside != null && listed.sessionId() != beside.sessionId()) {
            return giveUp(besideLost());
        }
        if (phase == Phase.LISTING) {
            List<String> children = listed.children().get(0);
            if (children == null) {
                return listCurrent();
            }
            if (!holdsPlace(listed.sessionId(), children, current)) {
                return lostPlace();
            }
            if (!besideStands(children)) {
                return giveUp(besideDeleted());
            }
            setVerdict(current, decide(current, children));
            return advance();
        }
        expect(Phase.ENTERING, listed);
        return entered(listed.sessionId(), listed.children());
    }

    /** Decides every queue on the listings read on entry; a queue whose listing failed is listed when its turn comes. */
    @Override
    Command entered(long sessionId, List<List<String>> listings) {
        if (beside != null && sessionId != beside.sessionId()) {
            return giveUp(besideLost());
        }
        for (int i = 0; i < paths.size(); i++) {
            List<String> children = listings.get(i);
            if (children != null && !holdsPlace(sessionId, children, i)) {
                return lostPlace();
            }
            if (children != null && !besideStands(children)) {
                return giveUp(besideDeleted());
            }
            setVerdict(i, children == null ? null : decide(i, children));
        }
        current = 0;
        return advance();
    }

    /** Goes on from the current queue: past those that hold, to the first that needs a listing or a wait. */
    private Command advance() {
        while (current < paths.size()) {
            ListingVerdict verdict = verdict(current);
            if (verdict == null) {
                return listCurrent();
            }
            if (!verdict.holds()) {
                return deadlinePassed ? giveUp(null) : watch(verdict);
            }
            current++;
        }
        phase = Phase.HELD;
        List<Boolean> front = new ArrayList<>(paths.size());
        for (int i = 0; i < paths.size(); i++) {
            front.add(verdict(i).front());
        }
        return new Command.Granted(nodes(), Collections.unmodifiableList(front), waited && paths.size() > 1);
    }

    private ListingVerdict verdict(int queue) {
        return verdicts == null ? ListingVerdict.of(onlyWatch, onlyFlags) : verdicts[queue];
    }

    private void setVerdict(int queue, ListingVerdict decided) {
        if (verdicts == null) {
            onlyWatch = decided == null ? null : decided.watched();
            onlyFlags = decided == null ? 0 : decided.flags();
        } else {
            verdicts[queue] = decided;
        }
    }

    @Override
    String nodeKind() {
        return "lock";
    }

    private Command listCurrent() {
        phase = Phase.LISTING;
        setVerdict(current, null);
        return new Command.ListQueue(current);
    }

    private Command watch(ListingVerdict verdict) {
        phase = Phase.WATCHING;
        waited = true;
        return new Command.Watch(
                current, verdict.watch(), verdict.holdsWithout() || verdict.holdsAfterFront(), verdict.ownAhead());
    }

    private Command watchedGone(boolean fromFront, boolean vouched) {
        ListingVerdict verdict = verdict(current);
        if (!vouched) {
            return listCurrent(); // nothing says our node still stands: the listing does (note 7)
        }
        if (verdict.holdsWithout()) {
            setVerdict(current, ListingVerdict.held(verdict.frontWithout()));
            return advance();
        }
        if (fromFront && verdict.holdsAfterFront()) {
            setVerdict(current, ListingVerdict.held(verdict.frontAfterFront()));
            return advance();
        }
        return listCurrent();
    }

    private Command woken(NodeWatcher.Wake wake, boolean vouched) {
        return switch (wake) {
            case DELETED -> watchedGone(false, vouched);
            case DELETED_FROM_FRONT -> watchedGone(true, vouched);
            case CHANGED -> watch(verdict(current)); // a data change spends the watch: set it again
            case SESSION_ENDED -> listCurrent(); // our own node may be gone: the listing tells
            case OWN_GONE -> lostPlace();
        };
    }

    @Override
    Command placeLost() {
        return lostPlace();
    }

    /** Our place was lost (session ended, or our node deleted): delete what may be left of it, then enter again. */
    private Command lostPlace() {
        logger.warn(
                "{}: lost our place {} while waiting; entering the queue again",
                paths.get(0).path(),
                nodes());
        List<LockNode> lost = takeNodes();
        if (verdicts != null) {
            Arrays.fill(verdicts, null);
        }
        onlyWatch = null;
        onlyFlags = 0;
        current = 0;
        phase = Phase.DELETING;
        return new Command.Delete(lost);
    }

    private boolean holdsPlace(long sessionId, List<String> children, int queue) {
        LockNode ours = node(queue);
        return ours.sessionId() == sessionId && children.contains(ours.name());
    }

    private ListingVerdict decide(int queue, List<String> children) {
        LockPath lockPath = paths.get(queue);
        LockQueueView view = lockPath.view(children, node(queue).name());
        if (beside != null) {
            return ListingVerdict.held(view.ourIndex() == 0); // the caller holds the node we rank with
        }
        LockDecision decision = lockPath.decide(view);
        if (decision.holdsLock()) {
            return ListingVerdict.held(view.ourIndex() == 0);
        }
        String watched = decision.nodeToWatch();
        if (decision.relistsWhenGone()) {
            return new ListingVerdict(false, false, lockPath.fixedChild(watched), false, false, false, false, null);
        }
        LockQueueView without = without(view, watched);
        LockQueueView afterFront = withoutUpTo(view, watched);
        // A watched writer that holds may downgrade after this listing: its read node carries the writer's sequence
        // and ranks before ours, unseen here. A grant without the writer holds (readers share), but not from the front.
        boolean mayBeFront = !NodeNames.isWriter(watched);
        return new ListingVerdict(
                false,
                false,
                lockPath.fixedChild(watched),
                lockPath.decide(without).holdsLock(),
                mayBeFront && without.ourIndex() == 0,
                lockPath.decide(afterFront).holdsLock(),
                mayBeFront && afterFront.ourIndex() == 0,
                null);
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
}
