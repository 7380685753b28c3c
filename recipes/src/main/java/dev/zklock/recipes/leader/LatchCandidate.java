package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The candidacy of one {@link ZkLeaderLatch}: its terms, one after the other, each a hold of the latch's lock core.
 * Safe for use by multiple threads.
 *
 * <pre>
 * Implementation notes.
 *
 * 1. A term is a hold that the engine's asynchronous acquire grants (LockCore.acquireAsync, no deadline): the engine
 *    creates the node, waits behind the node just before it, enters again with a new node when its session ends while
 *    it waits, and admits the grant only while the client is started, the connection up and the node ours and HELD
 *    (Admission). Nothing here lists, watches a predecessor or decides who leads: one algorithm, in the engine.
 * 2. Every change is handled on one serial executor (a thread of the latch's own that goes after a second idle): a
 *    grant, a change of the hold's state, a close, a retry. ZooKeeper's event thread and Curator's connection thread
 *    only hand news over, so neither waits on a latch, a listener or a user's lock.
 * 3. A leader is told notLeader the moment its hold leaves HELD. IN_DOUBT (the connection suspended, or the process
 *    seemingly paused) pauses the term: the node is kept, as Curator's latch keeps it, and the term resumes with its
 *    epoch, told isLeader, if the hold is HELD again, which the engine says only once it found the node standing on
 *    the same session after the reconnect: no one can have led meanwhile, for the node stood first throughout
 *    (LeaderLatchFaultsTest.leader_whenConnectionIsSuspended_stepsDownAndLeadsAgainOnItsNode). LOST (the session's
 *    end, or another client's delete of the node: LockPath.track keeps a watch on it) ends the term: the node's
 *    delete is sent (a guaranteed delete while the connection is down) and the candidate enters again with a new
 *    node, whose epoch is larger.
 * 4. hasLeadership reads the hold's state itself, so it is false from the moment the client's tracker moves the
 *    hold, before the term's end is handled here.
 * 5. A grant that comes after the close, or for an acquire the candidate no longer waits for, is released at once.
 * 6. A yield is a term's end by choice: endTerm sends the new entry's create, then the node's delete, on one session
 *    and in that order, so our new node stands before anyone hears of the delete: the yielder queues behind everyone
 *    queued at its yield, whoever yields after it (LeaderCuratorScenariosTest's latch rounds), and the next
 *    participant is granted on the delete with no request of its own
 *    (LeaderHandOverTest.yield_ofTheLeader_passesLeadershipToTheNext). A latch alone waits on its old node's delete
 *    (its new node is right behind it: no listing, one watch).
 * </pre>
 */
final class LatchCandidate {
    private static final Logger logger = LoggerFactory.getLogger(LatchCandidate.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LockCore core;
    private final String id;
    private final LatchListeners listeners;
    private final ThreadPoolExecutor serial;
    private final Object monitor = new Object(); // what await waits on; notified at every change of leadership
    private volatile Thread running; // the serial executor's thread while it runs a task
    private volatile boolean closed;
    private volatile Hold term; // the hold of the current term; written on the serial executor only
    private volatile boolean leading; // told isLeader and not yet notLeader; written on the serial executor only
    // A term (non-null) while not leading is paused: its hold went IN_DOUBT, its node kept (pauseTerm, resumeTerm).
    private CompletableFuture<Hold> entering; // confined to the serial executor: the acquire waited for, or null

    LatchCandidate(LockCore core, String id, LatchListeners listeners) {
        this.core = core;
        this.id = id;
        this.listeners = listeners;
        this.serial = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread =
                    new Thread(task, "zklock-leader-latch " + core.path().path());
            thread.setDaemon(true);
            return thread;
        });
        serial.allowCoreThreadTimeOut(true);
    }

    /** Hands a change of a hold's state over to the serial executor; on the notifier's thread, so it never blocks. */
    void stateChanged(LockStateEvent event) {
        post(() -> {
            Hold now = term;
            if (now != null
                    && !leading // a term paused by a suspension: its hold went IN_DOUBT, its node kept
                    && event.state() == LockState.HELD
                    && event.node().equals(now.node().path())) {
                resumeTerm(now);
            } else if (StepDown.endsTerm(event, now, core.path().client())) {
                if (event.state() == LockState.IN_DOUBT) {
                    pauseTerm(now);
                } else {
                    endTerm(TermEnd.LOST);
                }
            }
        });
    }

    /** Enters the election: one asynchronous acquire. */
    void start() {
        post(this::enter);
    }

    /**
     * Leaves the election: withdraws the acquire waited for, or ends the term (its node's delete sent), telling a
     * leader notLeader if {@code notify}; then no listener hears anything more. Waits for that to be done unless it
     * is called on the latch's own thread (from a listener), where it is done right after the listener returns.
     */
    void close(boolean notify) {
        close(notify, false);
    }

    /**
     * Leaves the election as {@link #close(boolean)}, and with {@code waitForDelete} waits for the delete of the
     * leader's node to be answered (at most one request timeout): for a shutdown hook, which the JVM does not outlive.
     */
    void close(boolean notify, boolean waitForDelete) {
        synchronized (monitor) {
            closed = true;
            monitor.notifyAll();
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        post(() -> {
            CompletableFuture<Hold> waited = entering;
            entering = null;
            if (waited != null) {
                waited.cancel(false);
            }
            Hold ended = term;
            boolean told = leading;
            leading = false;
            term = null;
            if (ended != null && waitForDelete) {
                core.release(ended, ended.heldNanos());
            } else if (ended != null) {
                core.releaseLater(ended);
            }
            if (told && notify) {
                listeners.notLeader(ended.token(), TermEnd.CLOSED);
            }
            listeners.clear();
            done.complete(null);
        });
        if (Thread.currentThread() != running) {
            done.join();
        }
    }

    /**
     * Ends the current term if this candidate leads, telling listeners notLeader, and enters again at the back of the
     * queue: the delete of its node is sent and then the create of a new one, on one session, so the participant next
     * in line is granted on that delete (a candidate alone leads again, with a larger epoch). A term paused by a
     * suspension is given up too (its node's delete is sent when the connection is back). Nothing if it holds no term.
     * Waits for the delete and the create to be sent, unless called on the latch's own thread.
     */
    void yieldTerm() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        post(() -> {
            if (term != null && !closed) { // leading, or paused by a suspension: either way the node goes
                endTerm(TermEnd.YIELDED);
            }
            done.complete(null);
        });
        if (Thread.currentThread() != running) {
            done.join();
        }
    }

    /** Whether this candidate leads now: told isLeader, not closed, and its hold HELD. Monitoring; no ZooKeeper call. */
    boolean hasLeadership() {
        return leadingTerm() != null;
    }

    /** The hold of the current term while this candidate leads, else null. Monitoring; no ZooKeeper call. */
    Hold leadingTerm() {
        Hold now = term;
        return leading && !closed && now != null && now.state() == LockState.HELD ? now : null;
    }

    /**
     * Waits until this candidate leads or is closed, and, if {@code timed}, at most {@code nanos}.
     *
     * @return whether it leads
     */
    boolean awaitLeadership(long nanos, boolean timed) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        synchronized (monitor) {
            while (!closed && !hasLeadership()) {
                if (!timed) {
                    monitor.wait();
                    continue;
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return !closed;
        }
    }

    private void post(Runnable task) {
        serial.execute(() -> {
            running = Thread.currentThread();
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                logger.error("{}: participant '{}' failed to handle a change of its candidacy", path(), id, e);
            } finally {
                running = null;
            }
        });
    }

    private void enter() {
        if (closed || entering != null || term != null) {
            return;
        }
        CompletableFuture<Hold> attempt;
        try {
            attempt = core.acquireAsync(null);
        } catch (IllegalStateException e) {
            logger.debug("{}: participant '{}' cannot enter: {}", path(), id, e.getMessage());
            return;
        }
        entering = attempt;
        attempt.whenComplete((hold, failure) -> post(() -> granted(attempt, hold, failure)));
    }

    private void granted(CompletableFuture<Hold> attempt, Hold hold, Throwable failure) {
        if (attempt != entering) {
            if (hold != null) {
                core.releaseLater(hold); // granted as it was withdrawn
            }
            return;
        }
        entering = null;
        if (failure != null) {
            retryAfter(failure instanceof CompletionException ? failure.getCause() : failure);
            return;
        }
        if (closed) {
            core.releaseLater(hold);
            return;
        }
        term = hold;
        if (hold.state() == LockState.LOST) {
            endTerm(TermEnd.LOST);
            return;
        }
        if (hold.state() == LockState.IN_DOUBT) {
            return; // paused: it leads once the hold is HELD, if its node is found standing
        }
        leading = true;
        logger.debug("{}: participant '{}' leads with {}", path(), id, hold);
        signal();
        listeners.isLeader(hold.token());
    }

    /**
     * Pauses the term whose hold went IN_DOUBT: the leader is told notLeader at once, its node is kept, and the term
     * resumes ({@link #resumeTerm}) if the hold is HELD again once the connection is back; it ends if LOST.
     */
    private void pauseTerm(Hold now) {
        boolean told = leading;
        leading = false;
        if (told) {
            logger.warn("{}: participant '{}' steps down, its hold {} is IN_DOUBT; it keeps its node", path(), id, now);
            listeners.notLeader(now.token(), TermEnd.IN_DOUBT);
        }
    }

    /** Resumes a paused term: its node was found standing on the same session, so no one can have led since. */
    private void resumeTerm(Hold now) {
        if (closed || now.state() != LockState.HELD) {
            return;
        }
        leading = true;
        logger.info("{}: participant '{}' leads again with {}", path(), id, now);
        signal();
        listeners.isLeader(now.token());
    }

    private void endTerm(TermEnd why) {
        Hold ended = term;
        boolean told = leading;
        leading = false;
        term = null;
        // The new entry first, then the old node's delete, on one session and in that order: the new node stands
        // before anyone hears of the delete, so a yielder queues behind everyone who was queued when it yielded, and no
        // one who yields after it can pass it however long this thread is kept from the second send
        // (LeaderCuratorScenariosTest.latches_yieldingFromIsLeader_passLeadershipRoundOneAtATime failed so under load,
        // a 1 ms preemption between the two sends).
        enter();
        core.releaseLater(ended);
        if (why == TermEnd.YIELDED) {
            logger.debug("{}: participant '{}' yields its term {}; entering again", path(), id, ended);
        } else {
            logger.warn(
                    "{}: participant '{}' ends its term, its hold {} is {}; entering again", path(), id, ended, why);
        }
        if (told) {
            listeners.notLeader(ended.token(), why);
        }
    }

    private void retryAfter(Throwable failure) {
        if (closed || failure instanceof CancellationException) {
            return;
        }
        if (core.path().client().getState() != CuratorFrameworkState.STARTED) {
            logger.debug("{}: participant '{}' leaves the election: its client is closed", path(), id);
            return;
        }
        logger.warn(
                "{}: participant '{}' could not enter the election; trying again in {} ms",
                path(),
                id,
                TimeUnit.NANOSECONDS.toMillis(RETRY_NANOS),
                failure);
        UnhandledErrors.report(core.path().client(), path() + ": participant '" + id + "' could not enter", failure);
        core.path().context().timer().schedule(() -> post(this::enter), RETRY_NANOS);
    }

    private void signal() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    private String path() {
        return core.path().path();
    }
}
