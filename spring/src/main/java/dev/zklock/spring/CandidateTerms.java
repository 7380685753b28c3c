package dev.zklock.spring;

import dev.zklock.recipes.leader.ZkLeaderLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch.CloseMode;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * The terms of one {@link ZkLeaderInitiator}'s candidate, on one latch after another: what it is told, in which order,
 * on which thread, and when its node's delete is sent. Safe for use by multiple threads.
 *
 * <pre>
 * Implementation notes.
 *
 * 1. Every callback of the candidate, every event, and every end of a latch (stop, yield) runs on `worker`, one
 *    thread, so grants and revokes are told in order and exactly once: `granted` is written there only.
 * 2. The latch's own thread only hands news over (isLeader, notLeader): it never waits on the candidate.
 * 3. A step-down of our own (stop, yield) runs onRevoked first, then closes the latch SILENT, which sends the delete
 *    of its node: the next candidate can only be granted once the server has that delete
 *    (ZkLeaderInitiatorTest.stop_ofTheLeader_revokesBeforeTheNextIsGranted). ZkLeaderLatch.close(NOTIFY_LEADER)
 *    would send the delete before it tells notLeader, which is why it is not used.
 * 4. A grant for a latch that is no longer the current one, or that has stepped down by the time the worker gets
 *    to it, is not told: the candidate never hears onGranted for a term already over.
 * 5. onGranted runs with `granting` set to its thread, so an end of the term interrupts it, and never anything
 *    else: the interrupt status is cleared under `grantLock` when it returns.
 * </pre>
 */
final class CandidateTerms {
    private static final Logger logger = LoggerFactory.getLogger(CandidateTerms.class);

    private final CuratorFramework client;
    private final Candidate candidate;
    private final String path;
    private final Context context;
    private final Object source; // the events' source: the initiator
    private final ThreadPoolExecutor worker;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private final Object grantLock = new Object();
    private volatile LeaderEventPublisher publisher; // null: no events
    private volatile ZkLeaderLatch latch; // written under `lifecycle`; null when stopped
    private volatile boolean granted; // told onGranted and not yet onRevoked; written on the worker only
    private volatile Thread workerThread; // the worker's current thread
    private Thread granting; // guarded by grantLock: the worker while it runs onGranted

    CandidateTerms(CuratorFramework client, Candidate candidate, String path, Context context, Object source) {
        this.client = client;
        this.candidate = candidate;
        this.path = path;
        this.context = context;
        this.source = source;
        this.worker = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, "zklock-leader-initiator " + path);
            thread.setDaemon(true);
            workerThread = thread;
            return thread;
        });
        worker.allowCoreThreadTimeOut(true);
    }

    void setPublisher(LeaderEventPublisher publisher) {
        this.publisher = publisher;
    }

    boolean hasPublisher() {
        return publisher != null;
    }

    /** Enters the election with a new latch, unless one runs. */
    void start() {
        lifecycle.lock();
        try {
            if (latch == null) {
                latch = enter();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    /** Leaves the election: onRevoked, then the delete; waits for that unless called on the worker. */
    void stop() {
        CompletableFuture<Void> done;
        lifecycle.lock();
        try {
            ZkLeaderLatch leaving = latch;
            if (leaving == null) {
                return;
            }
            latch = null;
            interruptGranting();
            done = CompletableFuture.runAsync(() -> leave(leaving, "stopped"), worker);
        } finally {
            lifecycle.unlock();
        }
        if (Thread.currentThread() != workerThread) {
            done.join();
        }
    }

    boolean isRunning() {
        return latch != null;
    }

    boolean isLeader() {
        ZkLeaderLatch now = latch;
        return granted && now != null && now.hasLeadership();
    }

    /** The current term's epoch; IllegalStateException naming the candidate if it does not lead. */
    long epoch() {
        ZkLeaderLatch now = latch;
        if (now == null || !granted) {
            throw new IllegalStateException(
                    "candidate '" + candidate.getId() + "' of leader path '" + path + "' does not lead now");
        }
        return now.epoch();
    }

    /** Hands leadership over if the candidate leads: onRevoked, the delete, a new entry; on the worker. */
    void yieldLeadership() {
        lifecycle.lock();
        try {
            ZkLeaderLatch leading = latch;
            if (leading == null || !granted) {
                return;
            }
            interruptGranting();
            worker.execute(() -> rejoin(leading));
        } finally {
            lifecycle.unlock();
        }
    }

    private void rejoin(ZkLeaderLatch leading) {
        lifecycle.lock();
        try {
            if (latch != leading) {
                return; // stopped, or yielded already
            }
            latch = null;
            leave(leading, "yields");
            try {
                latch = enter();
            } catch (IllegalStateException e) {
                logger.warn("{}: candidate '{}' yielded and cannot enter again", path, candidate.getId(), e);
            }
        } finally {
            lifecycle.unlock();
        }
    }

    private ZkLeaderLatch enter() {
        ZkLeaderLatch entering = new ZkLeaderLatch(client, path, candidate.getId());
        entering.addListener(new LeaderLatchListener() {
            @Override
            public void isLeader() {
                worker.execute(() -> grant(entering));
            }

            @Override
            public void notLeader() {
                interruptGranting();
                worker.execute(() -> revoke(entering, "stepped down"));
            }
        });
        entering.start();
        return entering;
    }

    /** On the worker: tells the candidate it leads, if the latch is still ours and still leads. */
    private void grant(ZkLeaderLatch leading) {
        if (leading != latch || granted || !leading.hasLeadership()) {
            return;
        }
        granted = true;
        logger.debug("{}: candidate '{}' leads", path, candidate.getId());
        synchronized (grantLock) {
            granting = Thread.currentThread();
        }
        boolean failed = false;
        try {
            candidate.onGranted(context);
        } catch (InterruptedException e) {
            logger.debug("{}: onGranted of candidate '{}' interrupted: its term ended", path, candidate.getId());
        } catch (RuntimeException e) {
            logger.warn("{}: onGranted of candidate '{}' threw; it yields", path, candidate.getId(), e);
            failed = true;
        } finally {
            synchronized (grantLock) {
                granting = null;
                Thread.interrupted(); // an end of the term meant for onGranted, not for what follows
            }
        }
        publish("OnGranted", events -> events.publishOnGranted(source, context, candidate.getRole()));
        if (failed) {
            yieldLeadership();
        }
    }

    /** On the worker: tells the candidate its term is over, if it was told it began. */
    private void revoke(ZkLeaderLatch ended, String why) {
        if (!granted || (ended != latch && latch != null)) {
            return;
        }
        granted = false;
        logger.debug("{}: candidate '{}' {}: onRevoked", path, candidate.getId(), why);
        try {
            candidate.onRevoked(context);
        } catch (RuntimeException e) {
            logger.warn("{}: onRevoked of candidate '{}' threw", path, candidate.getId(), e);
        }
        publish("OnRevoked", events -> events.publishOnRevoked(source, context, candidate.getRole()));
    }

    /** On the worker: a step-down of our own; onRevoked returns before the node's delete is sent. */
    private void leave(ZkLeaderLatch leaving, String why) {
        revoke(leaving, why);
        leaving.close(CloseMode.SILENT);
    }

    private void interruptGranting() {
        synchronized (grantLock) {
            if (granting != null) {
                granting.interrupt();
            }
        }
    }

    private void publish(String event, Consumer<LeaderEventPublisher> publishing) {
        LeaderEventPublisher events = publisher;
        if (events == null) {
            return;
        }
        try {
            publishing.accept(events);
        } catch (RuntimeException e) {
            logger.warn("{}: publishing {} for candidate '{}' failed", path, event, candidate.getId(), e);
        }
    }
}
