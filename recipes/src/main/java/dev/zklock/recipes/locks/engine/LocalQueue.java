package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDriver;
import java.util.List;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The local queue of a cohort: the threads of one process that use one lock object, queued behind a single node of the
 * ZooKeeper queue (lock cohorting, with caching of an idle node). A state machine: its {@link Cohort} runner tells it
 * each {@link LocalEvent} and carries out the {@link LocalCommand}s it answers; no I/O, no clock, no parked thread
 * ({@code LocalQueueTest}). Not thread-safe: the runner confines it to one thread at a time (its JVM lock).
 */
public final class LocalQueue {
    /*
     * Implementation notes. The machine decides, for each event, what happens to the cohort's node and its waiters;
     * the state it decides on lives beside it, each piece with its own notes: the node's life (CohortNode, with the
     * nodes let go while still held, RetiredNodes), the waiters and the leader (LocalWaiters), the passes and the
     * bounds of hand-off with the rules they make for a grant with no request (HandOffBounds), the watches that vouch
     * for the node (NodeWatches), and a read node's joins (ReadJoins).
     *
     * 1. The cohort holds at most one node. A thread that finds no node and no leader leads: it takes a node with the
     *    lock's own entry (the engine's acquisition and admission), the cohort's from then on. A leader that ends with
     *    no node hands the lead on (CohortLockTest.acquire_leaderGivesUpWhileLocalThreadsWait_theNextLeadsThemToTheLock).
     * 2. A grant names the node and the pass only: the thread asks Admission before it holds, as every grant does, and
     *    gives the node back (Release) if its deadline passes while the connection is down, or waits again (GrantLost)
     *    if the node is lost (AdmissionTest).
     * 3. Local order is FIFO. A release with a local waiter passes the node to the first, with no request; a shared
     *    (read) cohort lets its readers hold the node at once. Each pass counts, and the bounds run once a listing
     *    shows a conflicting node behind ours (HandOffBounds; LocalQueueTest, CohortLockTest).
     * 4. Our node known gone: a listing lacks it or finds the lock path gone, the data watch on the node itself fires
     *    NodeDeleted (or its read finds no node), the tracker says LOST, or Admission finds a grant LOST. The node is
     *    dropped at once (its holds are LOST: what the cohort learned itself it tells the tracker), and the waiters lead
     *    to a new node. It passes, and an idle one is taken, only while a watch vouches for it (NodeWatches).
     * 5. Caching: the last release keeps the node for keepIdle while no conflicting node is known; an acquire then takes
     *    it with no request (and asks Admission). An exclusive idle node goes on any change of the children, with no
     *    listing first: the arriving waiter gets in one delete after our event.
     * 6. A revocation request ends local passing: the node goes after its holders, and the waiters lead to a new node
     *    behind the requester.
     * 7. An exclusive cohort queues its threads at a gate (PassGate) before they come here: one at a time asks the
     *    machine, holds, or leads. A release tells whether threads wait at the gate (a Queued event tells it earlier,
     *    so that the child watch is set): the node passes to the gate as it would to a waiter (PassAtGate), and while
     *    it may pass with nothing to count (passableAtGate: vouched for, no conflict known, not revoked, nothing
     *    beside it) the gate passes it on its own, and the release that ends such a run tells the last pass.
     */

    private final boolean shared;
    private final CohortNode ours;
    private final LocalWaiters waiters = new LocalWaiters();
    private final HandOffBounds bounds;
    private final NodeWatches watches;
    private final ReadJoins joins; // shared only: closed, with no founders, otherwise
    private boolean queuedAtGate; // exclusive: threads were last known to wait at the cohort's gate

    /**
     * @param settings the pass and time bounds and the idle time
     * @param shared whether local holders share the node (a read lock)
     * @param driver the lock path's driver, which sorts its children
     */
    public LocalQueue(CohortSettings settings, boolean shared, LockDriver driver) {
        this.shared = shared;
        this.ours = new CohortNode(settings);
        this.bounds = new HandOffBounds(settings, shared);
        this.watches = new NodeWatches(ours, bounds, shared, driver);
        this.joins = new ReadJoins(settings, ours, waiters, bounds);
    }

    /** Tells the machine {@code event}; appends what to do to {@code out}, in order. */
    public void on(LocalEvent event, List<LocalCommand> out) {
        if (event instanceof LocalEvent.Acquire acquire) {
            acquire(acquire.waiter(), acquire.now(), out);
        } else if (event instanceof LocalEvent.Release release) {
            release(release, out);
        } else if (event instanceof LocalEvent.Queued) {
            queuedAtGate = true;
            if (cares()) {
                watches.watch(out); // its answer lets the node pass at the gate
            }
        } else if (event instanceof LocalEvent.GiveUp giveUp) {
            giveUp(giveUp.waiter(), giveUp.interrupted(), out);
        } else if (event instanceof LocalEvent.NodeTaken taken) {
            nodeTaken(taken.leader(), taken.node(), out);
        } else if (event instanceof LocalEvent.LeadEnded ended) {
            leadEnded(ended.leader(), out);
        } else if (event instanceof LocalEvent.GrantLost lost) {
            grantLost(lost.waiter(), lost.node(), out);
        } else if (event instanceof LocalEvent.ChildrenChanged changed) {
            childrenChanged(changed.node(), out);
        } else if (event instanceof LocalEvent.Listed listed) {
            listed(listed, out);
        } else if (event instanceof LocalEvent.ListingFailed failed) {
            listingFailed(failed, out);
        } else if (event instanceof LocalEvent.NodeLost lost) {
            if (ours.is(lost.node())) {
                endAndLead(out);
            }
        } else if (event instanceof LocalEvent.NodeDeleted deleted) {
            if (ours.is(deleted.node())) {
                out.add(new LocalCommand.Lose(ours.node()));
                endAndLead(out);
            }
        } else if (event instanceof LocalEvent.NodeWatched watched) {
            if (ours.is(watched.node()) && watches.ownWatchSet() && ours.holders() == 0) {
                if (!waiters.isEmpty()) {
                    passOrEnd(watched.now(), out); // a release waited for this answer
                } else {
                    settleUnheld(out);
                }
            }
        } else if (event instanceof LocalEvent.NodeWatchFailed failed) {
            if (ours.is(failed.node())) {
                watches.ownWatchFailed();
                if (ours.holders() == 0 && !waiters.isEmpty()) {
                    passOrEnd(failed.now(), out); // no answer comes now: ends the node unless a child watch stands
                } else if (ours.holders() == 0) {
                    settleUnheld(out);
                }
            }
        } else if (event instanceof LocalEvent.Resumed resumed) {
            resumed(resumed.node(), out);
        } else if (event instanceof LocalEvent.IdleExpired expired) {
            if (ours.is(expired.node()) && isIdle()) {
                ours.idleExpired(); // its timer has run
                endNode(out);
            }
        } else if (event instanceof LocalEvent.Revoked revocation) {
            revoked(revocation.node(), out);
        } else if (event instanceof LocalEvent.Beside besideChange) {
            if (ours.is(besideChange.node())) {
                bounds.besideChanged(besideChange.delta());
            }
        } else {
            throw new AssertionError("unknown event " + event);
        }
    }

    private void acquire(LocalWaiter waiter, long now, List<LocalCommand> out) {
        if (shared && joins.closeIfExpired(now)) {
            watches.list(out); // readers joined for maxTime since the last listing: they wait for one more
        }
        if (mayTakeAtOnce()) {
            if (shared || watches.confirmed()) {
                ours.grant(waiter, bounds.nextPass());
                ours.cancelIdle(out);
                return;
            }
            // An idle node no watch vouches for yet: wait for the listing that the idle keep sent (watch, below).
        } else if (!shared && isIdle()) {
            endNode(out); // kept, but not to be taken now (a read node beside it, say): a new node behind what stands
        }
        waiters.addLast(waiter);
        if (ours.node() == null) {
            waiters.leadNext(false, out);
        } else {
            watches.watch(out);
        }
    }

    private void release(LocalEvent.Release release, List<LocalCommand> out) {
        LockNode released = release.node();
        if (!ours.is(released)) {
            ours.retiredReleased(released, out); // the gate was opened when the node was let go (endNode)
            return;
        }
        bounds.released(release.pass());
        queuedAtGate = release.queued();
        if (ours.holderGone() > 0) {
            return;
        }
        if (!waiters.isEmpty() || queuedAtGate) {
            if (shared && bounds.isOpen()) {
                watches.list(out); // the listing (under way, or sent now) lets them in, or leads them to a new node
                return;
            }
            if (passOrEnd(release.now(), out)) {
                return; // the releaser passes the hold at the gate
            }
        } else {
            settleUnheld(out);
        }
        if (!shared) {
            out.add(new LocalCommand.OpenGate()); // the releaser lets the next through, to ask here
        }
    }

    /**
     * Nobody holds the node, waits for it or leads: it is kept idle if it may be, and goes otherwise. Besides the last
     * release, a reader's release that leaves the node to a listing under way for its waiters comes here once the
     * waiters gave up before the answer (the simulator's seed 207551: the read node stayed, unheld, for the life of
     * the client, and kept every writer out; LocalQueueTest).
     */
    private void settleUnheld(List<LocalCommand> out) {
        if (!isIdle() || ours.isKeptIdle()) {
            return;
        }
        if (ours.keepsIdle() && bounds.mayKeepIdle()) {
            ours.keepIdle(out);
            watches.watch(out);
            return;
        }
        endNode(out);
    }

    private void giveUp(LocalWaiter waiter, boolean interrupted, List<LocalCommand> out) {
        if (waiter.status() == LocalWaiter.Status.GRANTED) {
            return; // granted as it gave up: its thread decides what to do with the grant
        }
        if (waiter.status() == LocalWaiter.Status.LEAD) {
            if (interrupted) {
                leadEnded(waiter, out); // a leader whose deadline passed makes its one try
            }
            return;
        }
        waiters.remove(waiter);
        settleUnheld(out);
    }

    private void nodeTaken(LocalWaiter taker, LockNode taken, List<LocalCommand> out) {
        waiters.taken(taker, taken);
        ours.take(taken); // the rest of its state was cleared when the node before went (endNode)
        bounds.taken();
        if (shared) {
            joins.founded(); // they rank with the node, ahead of any writer that queues behind it meanwhile
        }
        if (shared || !waiters.isEmpty() || queuedAtGate) {
            watches.watch(
                    out); // the answer lets waiting readers join, or passes the node, once it vouches for the node
        }
    }

    private void leadEnded(LocalWaiter ended, List<LocalCommand> out) {
        waiters.leadEnded(ended);
        leadNext(out);
    }

    private void grantLost(LocalWaiter waiter, LockNode lost, List<LocalCommand> out) {
        waiter.waitAgain();
        if (ours.is(lost)) {
            ours.holderGone();
            endAndLead(out);
        } else {
            ours.retiredReleased(lost, out);
        }
        waiters.addFirst(waiter); // it keeps its place
        leadNext(out);
    }

    private void childrenChanged(LockNode changed, List<LocalCommand> out) {
        if (!ours.is(changed)) {
            return; // a watch set for an earlier node
        }
        watches.childrenChanged();
        if (bounds.conflictKnown()) {
            return; // the bounds run already: no watch is needed
        }
        if (!shared && isIdle()) {
            endNode(out); // any change: let the arriving waiter in without a listing first
            return;
        }
        joins.close(); // readers wait for the listing that tells whether a writer queued
        if (cares() || ours.holders() > 0) {
            // Held, the change may be our node's delete, made as the answer that let a holder in was on its way: its
            // holders must hear of it. For an exclusive node one listing at most, then a conflict is known, or the
            // node is gone.
            watches.watch(out);
        }
    }

    private void listed(LocalEvent.Listed listed, List<LocalCommand> out) {
        if (!ours.is(listed.node())) {
            out.add(new LocalCommand.StopWatching(listed.watcher())); // no delete of ours will fire it now
            return;
        }
        NodeWatches.Found found = watches.listed(listed.children());
        if (found == NodeWatches.Found.GONE) {
            out.add(new LocalCommand.Lose(ours.node()));
            endAndLead(out);
            return;
        }
        joins.letFoundersIn(out);
        if (found == NodeWatches.Found.CONFLICT_BEHIND) {
            if (bounds.conflictFound(listed.now())) {
                watches.watchOwn(out); // no child watch is kept from now on: the node's own tells of its delete
            }
            joins.close();
            if (ours.holders() == 0) {
                if (!waiters.isEmpty() && !shared) {
                    passOrEnd(listed.now(), out); // waited for this answer; the bounds start now
                } else {
                    endAndLead(out); // idle, or readers that must queue behind the writer: let it in now
                }
            }
            return;
        }
        letWaitersIn(listed.now(), out);
    }

    private void listingFailed(LocalEvent.ListingFailed failed, List<LocalCommand> out) {
        if (!ours.is(failed.node())) {
            return;
        }
        watches.listingFailed();
        if (failed.code() == Code.NONODE) {
            out.add(new LocalCommand.Lose(ours.node())); // the lock path is gone, and our node with it
            endAndLead(out);
            return;
        }
        // The connection failed: no watch vouches for the node now, so nobody is let in on it. Waiters for an unheld
        // node lead to a new one (its entry waits for the connection within their deadline); the others wait for the
        // release, which lists again or ends the node. The watch is set again when the node is HELD again (Resumed).
        if (ours.holders() == 0 && !waiters.isEmpty()) {
            if (shared) {
                endAndLead(out);
            } else {
                passOrEnd(failed.now(), out);
            }
            return;
        }
        settleUnheld(out);
    }

    /** The node is HELD again after the connection was down: the watches that failed meanwhile are set again. */
    private void resumed(LockNode resumed, List<LocalCommand> out) {
        if (!ours.is(resumed)) {
            return;
        }
        if (bounds.conflictKnown()) {
            watches.watchOwn(out); // set again if it failed while down
        }
        if (cares()) {
            watches.watch(out);
        }
    }

    private void revoked(LockNode asked, List<LocalCommand> out) {
        if (!ours.is(asked)) {
            return;
        }
        bounds.revoke();
        joins.close();
        if (ours.holders() == 0) {
            endAndLead(out);
        }
    }

    /** No conflict known: readers join (ReadJoins), or a waiter that waited for the answer gets the node. */
    private void letWaitersIn(long now, List<LocalCommand> out) {
        if (shared) {
            if (!joins.letWaitersIn(now, out)) {
                if (ours.holders() == 0 && !waiters.isEmpty()) {
                    endAndLead(out);
                }
                return;
            }
        } else if (ours.holders() == 0 && !waiters.isEmpty()) {
            passOrEnd(now, out);
        }
        settleUnheld(out);
    }

    /** Whether an acquire may take the node at once: nobody leads or waits, and the bounds let it (HandOffBounds). */
    private boolean mayTakeAtOnce() {
        return ours.node() != null
                && !waiters.hasLeader()
                && waiters.isEmpty()
                && bounds.mayTakeAtOnce(ours.holders(), joins.isOpen());
    }

    /**
     * Exclusive, unheld, with local waiters (in the machine, or else at the gate): passes the node if it may pass and a
     * watch vouches for it (returns true if to the gate: {@link LocalCommand.PassAtGate}); waits if the answer that would vouch for it is on its way; else ends it, and the first
     * waiter leads the rest to a new node. With nobody waiting here the node passes to the gate, and an answer on its
     * way is waited for only if it is a listing (the thread the gate lets through waits for it here; if none comes,
     * the answer settles the node); an own watch's answer is not: the bounds run, and the node goes at once.
     */
    private boolean passOrEnd(long now, List<LocalCommand> out) {
        if (bounds.mayPass(now)) {
            if (watches.confirmed()) {
                bounds.passed();
                ours.cancelIdle(out); // an idle node taken once a listing vouched for it
                LocalWaiter next = waiters.pollFirst();
                if (next != null) {
                    ours.grantAndWake(next, bounds.nextPass(), out);
                    return false;
                }
                ours.grantAtGate(bounds.nextPass(), out);
                return true;
            }
            if (watches.answerOnItsWay() && (!waiters.isEmpty() || !bounds.conflictKnown())) {
                return false; // its answer passes the node, or ends it
            }
        }
        endAndLead(out);
        return false;
    }

    /**
     * Returns the node if the cohort's gate may pass it on its own ({@link PassGate}): held, threads queued at the
     * gate, a watch vouching for it, and nothing to count (no conflict known, not revoked, no read node beside it).
     */
    public LockNode passableAtGate() {
        return ours.holders() > 0 && queuedAtGate && watches.confirmed() && bounds.passesFreely() ? ours.node() : null;
    }

    /** Whether the machine knows that threads wait at the gate: else the first to queue tells it (Queued). */
    public boolean knowsQueued() {
        return queuedAtGate;
    }

    /** Whether the cohort has a node that nobody holds, waits for or leads to. */
    private boolean isIdle() {
        return ours.node() != null && ours.holders() == 0 && waiters.isEmpty() && !waiters.hasLeader();
    }

    /** Whether a child watch matters: readers may join, the node is idle, or local threads wait. */
    private boolean cares() {
        return ours.node() != null
                && !bounds.conflictKnown()
                && (shared || ours.holders() == 0 || !waiters.isEmpty() || queuedAtGate);
    }

    private void leadNext(List<LocalCommand> out) {
        waiters.leadNext(ours.node() != null, out);
    }

    /**
     * Lets the node go (CohortNode.end) and forgets what was known of it. An exclusive node let go while held (lost,
     * deleted) opens the gate: the threads queued there go on without waiting for its holder's release.
     */
    private void endNode(List<LocalCommand> out) {
        if (!shared && ours.holders() > 0) {
            out.add(new LocalCommand.OpenGate());
        }
        ours.end(out);
        bounds.clear();
        watches.clear();
        joins.clear();
    }

    /** Ends the node and has the first waiter lead the rest to a new one (the node may be lost: its holds are LOST). */
    private void endAndLead(List<LocalCommand> out) {
        endNode(out);
        leadNext(out);
    }

    /**
     * Tells whether a {@link LocalEvent.Release}'s time matters now: only while the bounds run (a conflicting node is
     * known behind ours, {@link HandOffBounds#mayPass}); else its runner need not read the clock for it.
     */
    public boolean readsReleaseTime() {
        return bounds.conflictKnown();
    }

    /** Returns what the queue looks like now, for monitoring, tests and a registry's eviction. */
    public View view() {
        boolean hasNode = ours.node() != null;
        return new View(
                hasNode || waiters.hasLeader() || !waiters.isEmpty() || ours.hasRetired(),
                waiters.count(),
                bounds.conflictKnown(),
                hasNode && joins.isOpen() && !bounds.conflictKnown(),
                hasNode && bounds.mayGrantMore(),
                ours.node());
    }

    /**
     * What a local queue looks like at one moment.
     *
     * @param active it holds a node, takes one, or has threads waiting: a registry must not forget it
     * @param waiting the local threads that wait, a leader taking a node among them
     * @param conflictKnown a conflicting node is known behind the cohort's node: the bounds run
     * @param joinable local readers may join the held node now, with no request
     * @param passable the node may still pass locally: not asked to let go, passes left
     * @param node the cohort's node, or null
     */
    public record View(
            boolean active, int waiting, boolean conflictKnown, boolean joinable, boolean passable, LockNode node) {}
}
