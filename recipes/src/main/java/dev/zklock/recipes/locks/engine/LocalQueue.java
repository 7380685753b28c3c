package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockDriver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.KeeperException.Code;

/**
 * The local queue of a cohort: the threads of one process that use one lock object, queued behind a single node of the
 * ZooKeeper queue (lock cohorting, with caching of an idle node). A state machine: its {@link Cohort} runner tells it
 * each {@link LocalEvent} and carries out the {@link LocalCommand}s it answers; no I/O, no clock, no parked thread
 * ({@code LocalQueueTest}). Not thread-safe: the runner confines it to one thread at a time (its JVM lock).
 */
public final class LocalQueue {
    /*
     * Implementation notes.
     *
     * 1. The cohort holds at most one node. A thread that finds no node and no leader leads: it takes a node with the
     *    lock's own entry (the engine's acquisition and admission), the cohort's from then on. A leader that ends with
     *    no node hands the lead on (CohortLockTest.acquire_leaderGivesUpWhileLocalThreadsWait_theNextLeadsThemToTheLock).
     * 2. A grant names the node and the pass only: the thread asks Admission before it holds, as every grant does, and
     *    gives the node back (Release) if its deadline passes while the connection is down, or waits again (GrantLost)
     *    if the node is lost (AdmissionTest).
     * 3. Local order is FIFO. A release with a local waiter passes the node to the first, with no request; a shared
     *    (read) cohort lets its readers hold the node at once. Each pass of an exclusive node counts, which makes the
     *    hold's fencing token (FencingToken): a node passes at most PASSES_PER_NODE - 1 times, then goes. The readers of
     *    one read node hold at once and share its token: a read hold is fenced against writers, not other readers.
     * 4. Bounded unfairness: while the cohort cares (a local waiter, a shared node, an idle node) it keeps a child watch
     *    on the lock path, set with a listing. Once a listing shows a conflicting node behind ours (any, exclusive; a
     *    writer's, shared), the node passes at most maxPasses times and for maxTime, then goes, and the first waiter
     *    leads the rest to a new one at the back. Readers stop joining at once (LocalQueueTest, CohortLockTest).
     * 5. Our node known gone: a listing lacks it or finds the lock path gone, the data watch on the node itself fires
     *    NodeDeleted (or its read finds no node), the tracker says LOST, or Admission finds a grant LOST. The node is
     *    dropped at once (its holds are LOST: what the cohort learned itself it tells the tracker), and the waiters lead
     *    to a new node. An exclusive node passes, and an idle one is taken, only while a watch stands that would tell
     *    of its delete: the child watch of a listing that found it, or, once the bounds run and no child watch is kept,
     *    the node's own data watch, set then (one read per node, and none for a node nobody waits for: an uncontended
     *    hold costs what a plain one does). Until one stands, a release with local waiters waits for the answer on its
     *    way, or ends the node if none is (LocalQueueTest; against a real server,
     *    AdmissionTest.strangerDeletesTheCohortsNode_theLocalWaiterNeverHoldsBesideTheSessionThatGotIt).
     * 6. Caching: the last release keeps the node for keepIdle while no conflicting node is known; an acquire then takes
     *    it with no request (and asks Admission). An exclusive idle node goes on any change of the children, with no
     *    listing first: the arriving waiter gets in one delete after our event.
     * 7. Shared joins need a fresh listing: a reader joins with no request only while the last listing found no writer
     *    behind the node, for at most maxTime after it; then one listing, which new readers wait for (CohortLockTest).
     *    The readers that waited as the node was taken join it on the first listing that finds it, a writer behind or
     *    not: they were there before that writer (LocalQueueTest).
     * 8. A revocation request ends local passing: the node goes after its holders, and the waiters lead to a new node
     *    behind the requester. A write node with a read node beside it (a downgrade) never passes and is never kept
     *    idle: the read node ranks with it, so the next local writer would hold beside a reader.
     */

    private final boolean shared;
    private final int maxPasses;
    private final long maxTimeNanos;
    private final long keepIdleNanos;
    private final LockDriver driver;

    private final ArrayDeque<LocalWaiter> waiting = new ArrayDeque<>();
    private final Map<LockNode, int[]> retired = new IdentityHashMap<>(); // dropped nodes still held: holders left
    private final List<LocalWaiter> founders = new ArrayList<>(); // shared: waited for the node as it was taken
    private LocalWaiter leader; // takes a node for the cohort; null when none does
    private LockNode node; // the cohort's node, or null
    private int holders; // local holders of node
    private int passes; // holds granted on node so far
    private boolean conflict; // a conflicting node is known behind node: the bounds run, from then, for passes
    private long conflictSince;
    private int passesInConflict;
    private boolean listing; // a listing with a child watch is on its way for node
    private boolean watched; // a child watch is set for node by a listing that found it, and has not fired
    private boolean ownSent; // the node's own data watch was asked for and has not failed
    private boolean ownSet; // ... and its read found the node: a delete of it will be told
    private boolean joinable; // shared: the last listing found no writer behind node
    private long joinableSince;
    private boolean idle; // node is kept idle, its expiry scheduled
    private boolean revoked;
    private int beside; // read nodes held beside node (downgrades)

    /**
     * @param settings the pass and time bounds and the idle time
     * @param shared whether local holders share the node (a read lock)
     * @param driver the lock path's driver, which sorts its children
     */
    public LocalQueue(CohortSettings settings, boolean shared, LockDriver driver) {
        this.shared = shared;
        this.maxPasses = settings.maxPasses();
        this.maxTimeNanos = settings.maxTimeNanos();
        this.keepIdleNanos = settings.keepIdleNanos();
        this.driver = driver;
    }

    /** Tells the machine {@code event}; appends what to do to {@code out}, in order. */
    public void on(LocalEvent event, List<LocalCommand> out) {
        if (event instanceof LocalEvent.Acquire acquire) {
            acquire(acquire.waiter(), acquire.now(), out);
        } else if (event instanceof LocalEvent.Release release) {
            release(release.node(), release.now(), out);
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
            if (lost.node() == node) {
                endAndLead(out);
            }
        } else if (event instanceof LocalEvent.NodeDeleted deleted) {
            if (deleted.node() == node) {
                out.add(new LocalCommand.Lose(node));
                endAndLead(out);
            }
        } else if (event instanceof LocalEvent.NodeWatched watched) {
            if (watched.node() == node && ownSent) {
                ownSet = true;
                if (holders == 0 && !waiting.isEmpty()) {
                    passOrEnd(watched.now(), out); // a release waited for this answer
                }
            }
        } else if (event instanceof LocalEvent.NodeWatchFailed failed) {
            if (failed.node() == node) {
                ownSent = false;
                ownSet = false;
                if (holders == 0 && !waiting.isEmpty()) {
                    passOrEnd(failed.now(), out); // no answer comes now: ends the node unless a child watch stands
                }
            }
        } else if (event instanceof LocalEvent.Resumed resumed) {
            if (resumed.node() == node) {
                if (conflict) {
                    watchOwn(out); // set again if it failed while down
                }
                if (cares()) {
                    watch(out);
                }
            }
        } else if (event instanceof LocalEvent.IdleExpired expired) {
            if (expired.node() == node && isIdle()) {
                idle = false; // its timer has run
                endNode(out);
            }
        } else if (event instanceof LocalEvent.Revoked revocation) {
            revoked(revocation.node(), out);
        } else if (event instanceof LocalEvent.Beside besideChange) {
            if (besideChange.node() == node) {
                beside += besideChange.delta();
            }
        } else {
            throw new AssertionError("unknown event " + event);
        }
    }

    private void acquire(LocalWaiter waiter, long now, List<LocalCommand> out) {
        closeExpiredJoins(now, out);
        if (mayTakeAtOnce()) {
            if (shared || confirmed()) {
                grant(waiter);
                cancelIdle(out);
                return;
            }
            // An idle node no watch vouches for yet: wait for the listing that the idle keep sent (watch, below).
        } else if (!shared && isIdle()) {
            endNode(out); // kept, but not to be taken now (a read node beside it, say): a new node behind what stands
        }
        waiting.addLast(waiter);
        if (node == null) {
            leadNext(out);
        } else {
            watch(out);
        }
    }

    private void release(LockNode released, long now, List<LocalCommand> out) {
        if (released != node) {
            endRetired(released, out);
            return;
        }
        if (--holders > 0) {
            return;
        }
        if (!waiting.isEmpty()) {
            if (shared && !conflict && mayGrantMore()) {
                list(out); // the listing (under way, or sent now) lets them in, or leads them to a new node
                return;
            }
            passOrEnd(now, out);
            return;
        }
        settleUnheld(out);
    }

    /**
     * Nobody holds the node, waits for it or leads: it is kept idle if it may be, and goes otherwise. Besides the last
     * release, a reader's release that leaves the node to a listing under way for its waiters comes here once the
     * waiters gave up before the answer (the simulator's seed 207551: the read node stayed, unheld, for the life of
     * the client, and kept every writer out; LocalQueueTest).
     */
    private void settleUnheld(List<LocalCommand> out) {
        if (node == null || holders > 0 || !waiting.isEmpty() || leader != null || idle) {
            return;
        }
        if (keepIdleNanos > 0 && !conflict && mayGrantMore() && beside == 0) {
            idle = true;
            out.add(new LocalCommand.KeepIdle(node, keepIdleNanos));
            watch(out);
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
        waiting.remove(waiter);
        settleUnheld(out);
    }

    private void nodeTaken(LocalWaiter taker, LockNode taken, List<LocalCommand> out) {
        if (taker != leader) {
            throw new AssertionError("node " + taken + " taken by " + taker + ", but the leader is " + leader);
        }
        leader = null;
        node = taken; // the rest of its state was cleared when the node before went (clearNode)
        holders = 1;
        passes = 1;
        if (shared) {
            founders.addAll(waiting); // they rank with the node, ahead of any writer that queues behind it meanwhile
        }
        if (shared || !waiting.isEmpty()) {
            watch(out); // the answer lets waiting readers join, or passes the node, once it vouches for the node
        }
    }

    private void leadEnded(LocalWaiter ended, List<LocalCommand> out) {
        if (ended == leader) {
            leader = null;
        }
        if (node == null) {
            leadNext(out);
        }
    }

    private void grantLost(LocalWaiter waiter, LockNode lost, List<LocalCommand> out) {
        waiter.waitAgain();
        if (lost == node) {
            holders--;
            endAndLead(out);
        } else {
            endRetired(lost, out);
        }
        waiting.addFirst(waiter); // it keeps its place
        if (node == null) {
            leadNext(out);
        }
    }

    private void childrenChanged(LockNode changed, List<LocalCommand> out) {
        if (changed != node) {
            return; // a watch set for an earlier node
        }
        watched = false;
        if (conflict) {
            return; // the bounds run already: no watch is needed
        }
        if (!shared && isIdle()) {
            endNode(out); // any change: let the arriving waiter in without a listing first
            return;
        }
        joinable = false; // readers wait for the listing that tells whether a writer queued
        if (cares() || holders > 0) {
            // Held, the change may be our node's delete, made as the answer that let a holder in was on its way: its
            // holders must hear of it. For an exclusive node one listing at most, then a conflict is known, or the
            // node is gone.
            watch(out);
        }
    }

    private void listed(LocalEvent.Listed listed, List<LocalCommand> out) {
        if (listed.node() != node) {
            out.add(new LocalCommand.StopWatching(listed.watcher())); // no delete of ours will fire it now
            return;
        }
        listing = false;
        watched = true;
        List<String> sorted = driver.sort(listed.children());
        int ours = sorted.indexOf(node.name());
        if (ours < 0) {
            out.add(new LocalCommand.Lose(node));
            endAndLead(out);
            return;
        }
        letFoundersIn(out);
        if (NodeNames.conflictsBehind(sorted, ours, shared)) {
            if (!conflict) {
                conflict = true;
                conflictSince = listed.now();
                passesInConflict = 0;
                watchOwn(out); // no child watch is kept from now on: the node's own tells of its delete
            }
            joinable = false;
            if (holders == 0) {
                if (!waiting.isEmpty() && !shared) {
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
        if (failed.node() != node) {
            return;
        }
        listing = false;
        watched = false;
        if (failed.code() == Code.NONODE) {
            out.add(new LocalCommand.Lose(node)); // the lock path is gone, and our node with it
            endAndLead(out);
            return;
        }
        // The connection failed: no watch vouches for the node now, so nobody is let in on it. Waiters for an unheld
        // node lead to a new one (its entry waits for the connection within their deadline); the others wait for the
        // release, which lists again or ends the node. The watch is set again when the node is HELD again (Resumed).
        if (holders == 0 && !waiting.isEmpty()) {
            if (shared) {
                endAndLead(out);
            } else {
                passOrEnd(failed.now(), out);
            }
            return;
        }
        settleUnheld(out);
    }

    private void revoked(LockNode asked, List<LocalCommand> out) {
        if (asked != node) {
            return;
        }
        revoked = true;
        joinable = false;
        if (holders == 0) {
            endAndLead(out);
        }
    }

    /**
     * Shared: the readers that waited as the node was taken join it once a listing vouches for it, whatever queued
     * behind it since: they were there first. Readers that came later join as the last listing lets them.
     */
    private void letFoundersIn(List<LocalCommand> out) {
        if (founders.isEmpty()) {
            return;
        }
        boolean granted = false;
        for (LocalWaiter founder : founders) {
            if (mayGrantMore() && waiting.remove(founder)) {
                grantAndWake(founder, out);
                granted = true;
            }
        }
        founders.clear();
        if (granted) {
            cancelIdle(out);
        }
    }

    /** No conflict known: readers join, or a waiter that waited for the answer gets the node. */
    private void letWaitersIn(long now, List<LocalCommand> out) {
        if (shared) {
            if (!mayGrantMore()) {
                if (holders == 0 && !waiting.isEmpty()) {
                    endAndLead(out);
                }
                return;
            }
            joinable = true;
            joinableSince = now;
            boolean granted = false;
            while (!waiting.isEmpty() && mayGrantMore()) {
                grantAndWake(waiting.pollFirst(), out);
                granted = true;
            }
            if (granted) {
                cancelIdle(out);
            }
        } else if (holders == 0 && !waiting.isEmpty()) {
            passOrEnd(now, out);
        }
        settleUnheld(out);
    }

    /** Shared: readers joined for maxTime since the last listing; joins close until one more answers. */
    private void closeExpiredJoins(long now, List<LocalCommand> out) {
        if (shared && joinable && holders > 0 && now - joinableSince >= maxTimeNanos) {
            joinable = false;
            list(out);
        }
    }

    private boolean mayTakeAtOnce() {
        if (node == null || leader != null || !waiting.isEmpty() || conflict || !mayGrantMore()) {
            return false;
        }
        return shared ? joinable : holders == 0 && beside == 0;
    }

    /** Exclusive: whether a release may pass the node to the next local waiter now. */
    private boolean mayPass(long now) {
        if (shared || !mayGrantMore() || beside > 0) {
            return false;
        }
        return !conflict || (passesInConflict < maxPasses && now - conflictSince < maxTimeNanos);
    }

    /**
     * Exclusive, unheld, with local waiters: passes the node if it may pass and a watch vouches for it; waits if the
     * answer that would vouch for it is on its way; else ends it, and the first waiter leads the rest to a new node.
     */
    private void passOrEnd(long now, List<LocalCommand> out) {
        if (mayPass(now)) {
            if (confirmed()) {
                pass(out);
                return;
            }
            if (listing || ownSent) {
                return; // its answer passes the node, or ends it
            }
        }
        endAndLead(out);
    }

    /** Whether a watch stands that would tell of the node's delete, set by a read that found the node. */
    private boolean confirmed() {
        return watched || ownSet;
    }

    private boolean mayGrantMore() {
        return !revoked && (shared || passes < FencingToken.PASSES_PER_NODE);
    }

    private boolean isIdle() {
        return node != null && holders == 0 && waiting.isEmpty() && leader == null;
    }

    /** Whether a child watch matters: readers may join, the node is idle, or local threads wait. */
    private boolean cares() {
        return node != null && !conflict && (shared || holders == 0 || !waiting.isEmpty());
    }

    private void pass(List<LocalCommand> out) {
        if (conflict) {
            passesInConflict++;
        }
        cancelIdle(out); // an idle node taken once a listing vouched for it
        grantAndWake(waiting.pollFirst(), out);
    }

    private void grant(LocalWaiter waiter) {
        waiter.grant(node, shared ? 0 : passes++);
        holders++;
    }

    private void grantAndWake(LocalWaiter waiter, List<LocalCommand> out) {
        grant(waiter);
        out.add(new LocalCommand.Wake(waiter));
    }

    private void leadNext(List<LocalCommand> out) {
        if (leader != null || node != null || waiting.isEmpty()) {
            return;
        }
        leader = waiting.pollFirst();
        leader.lead();
        out.add(new LocalCommand.Wake(leader));
    }

    /** Lists with the child watch unless a listing is on its way or a watch is set, and no conflict is known. */
    private void watch(List<LocalCommand> out) {
        if (node != null && !conflict && !watched) {
            list(out);
        }
    }

    /** Exclusive: asks for the node's own data watch unless asked for already. */
    private void watchOwn(List<LocalCommand> out) {
        if (!shared && node != null && !ownSent) {
            ownSent = true;
            out.add(new LocalCommand.WatchNode(node));
        }
    }

    private void list(List<LocalCommand> out) {
        if (!listing) {
            listing = true;
            out.add(new LocalCommand.List(node));
        }
    }

    private void cancelIdle(List<LocalCommand> out) {
        if (idle) {
            idle = false;
            out.add(new LocalCommand.CancelIdle());
        }
    }

    /** Lets the node go with its holds over: ended now if nobody holds it, else when its last holder releases. */
    private void endNode(List<LocalCommand> out) {
        LockNode ended = node;
        int left = holders;
        clearNode(out);
        if (left == 0) {
            out.add(new LocalCommand.End(ended));
        } else {
            retired.put(ended, new int[] {left});
        }
    }

    /** Ends the node and has the first waiter lead the rest to a new one (the node may be lost: its holds are LOST). */
    private void endAndLead(List<LocalCommand> out) {
        endNode(out);
        leadNext(out);
    }

    private void endRetired(LockNode released, List<LocalCommand> out) {
        int[] left = retired.get(released);
        if (left == null) {
            out.add(new LocalCommand.End(released));
        } else if (--left[0] == 0) {
            retired.remove(released);
            out.add(new LocalCommand.End(released));
        }
    }

    private void clearNode(List<LocalCommand> out) {
        cancelIdle(out);
        node = null;
        holders = 0;
        passes = 0;
        listing = false;
        watched = false;
        ownSent = false;
        ownSet = false;
        founders.clear();
        joinable = false;
        conflict = false;
        passesInConflict = 0;
        revoked = false;
        beside = 0;
    }

    /** Returns what the queue looks like now, for monitoring, tests and a registry's eviction. */
    public View view() {
        return new View(
                node != null || leader != null || !waiting.isEmpty() || !retired.isEmpty(),
                waiting.size() + (leader != null ? 1 : 0),
                conflict,
                node != null && joinable && !conflict,
                node != null && mayGrantMore(),
                node);
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
