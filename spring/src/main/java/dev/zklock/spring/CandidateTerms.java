package dev.zklock.spring;

import dev.zklock.recipes.leader.ZkLeaderSelector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.CloseableExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * The terms of one {@link ZkLeaderInitiator}'s candidate, on one {@link ZkLeaderSelector} per start: what it is told,
 * in which order, on which thread, and when its node's delete is sent. Safe for use by multiple threads.
 *
 * <pre>
 * Implementation notes.
 *
 * 1. A term is the selector's takeLeadership, on the selector's thread (`term`): it hands onGranted to `worker`, waits
 *    until its thread is interrupted (yield: interruptLeadership; stop: the selector's close; the hold leaving HELD:
 *    the selector itself), then hands onRevoked to `worker` and waits for it to return, deaf to further interrupts.
 *    Only then does takeLeadership return, and the selector sends the delete of the node
 *    (ZkLeaderInitiatorTest.stop_ofTheLeader_revokesBeforeTheNextIsGranted), as Spring's own initiator, which runs
 *    onRevoked in takeLeadership's finally.
 * 2. Every callback of the candidate and every event runs on `worker`, one thread that no interrupt meant for the
 *    selector reaches, so onRevoked is never interrupted; `granted` is written there only.
 * 3. onGranted runs with `granting` set to its thread, so an end of the term interrupts it, and never anything else:
 *    the interrupt status is cleared under `grantLock` when it returns. A term that ended before its onGranted began
 *    (`Term.over`) is not told onGranted: the candidate never hears it for a term already over.
 * 4. The selector requeues itself (autoRequeue, as Spring's initiator): after a yield or a lost hold the candidate
 *    enters again with a new node, created after the old one's delete.
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
    private volatile ZkLeaderSelector selector; // written under `lifecycle`; null when stopped
    private ExecutorService terms; // guarded by `lifecycle`: the current selector's thread
    private volatile boolean granted; // told onGranted and not yet onRevoked; written on the worker only
    private volatile Thread workerThread; // the worker's current thread
    private Thread granting; // guarded by grantLock: the worker while it runs onGranted

    /** One term's end, so an onGranted queued behind it is not begun. */
    private static final class Term {
        boolean over; // guarded by grantLock
    }

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

    /** Enters the election with a new selector, unless one runs. */
    void start() {
        lifecycle.lock();
        try {
            if (selector != null) {
                return;
            }
            ExecutorService thread = Executors.newSingleThreadExecutor(task -> {
                Thread t = new Thread(task, "zklock-leader-selector " + path);
                t.setDaemon(true);
                return t;
            });
            ZkLeaderSelector entering = new ZkLeaderSelector(
                    client, path, new CloseableExecutorService(thread, true), new LeaderSelectorListener() {
                        @Override
                        public void takeLeadership(CuratorFramework client) {
                            term();
                        }

                        @Override
                        public void stateChanged(CuratorFramework client, ConnectionState newState) {
                            // the selector interrupts the term itself when its hold leaves HELD
                        }
                    });
            entering.setId(candidate.getId());
            entering.autoRequeue();
            try {
                entering.start();
            } catch (RuntimeException e) {
                thread.shutdownNow();
                throw e;
            }
            selector = entering;
            terms = thread;
        } finally {
            lifecycle.unlock();
        }
    }

    /** Leaves the election: onRevoked, then the delete; waits for that unless called on the worker. */
    void stop() {
        ExecutorService leaving;
        lifecycle.lock();
        try {
            ZkLeaderSelector closing = selector;
            if (closing == null) {
                return;
            }
            selector = null;
            leaving = terms;
            terms = null;
            closing.close(); // interrupts the term under way; the executor is shut down, its last task runs out
        } finally {
            lifecycle.unlock();
        }
        if (Thread.currentThread() != workerThread) {
            awaitUninterruptibly(leaving);
        }
    }

    boolean isRunning() {
        return selector != null;
    }

    boolean isLeader() {
        ZkLeaderSelector now = selector;
        return granted && now != null && now.hasLeadership();
    }

    /** The current term's epoch; IllegalStateException naming the candidate if it does not lead. */
    long epoch() {
        ZkLeaderSelector now = selector;
        if (now == null || !granted) {
            throw new IllegalStateException(
                    "candidate '" + candidate.getId() + "' of leader path '" + path + "' does not lead now");
        }
        return now.epoch();
    }

    /** Hands leadership over if the candidate leads: ends the term; the selector enters again after the delete. */
    void yieldLeadership() {
        ZkLeaderSelector leading = selector;
        if (leading != null && granted) {
            leading.interruptLeadership();
        }
    }

    /** On the selector's thread: one term, from onGranted to onRevoked's return. */
    private void term() {
        Term term = new Term();
        worker.execute(() -> grant(term));
        try {
            new CountDownLatch(1).await(); // until the term ends: an interrupt
        } catch (InterruptedException e) {
            logger.debug("{}: the term of candidate '{}' ends", path, candidate.getId());
        }
        synchronized (grantLock) {
            term.over = true;
            if (granting != null) {
                granting.interrupt();
            }
        }
        CompletableFuture<Void> revoked = CompletableFuture.runAsync(this::revoke, worker);
        boolean interrupted = false;
        while (true) {
            try {
                revoked.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the term is over already
            } catch (ExecutionException e) {
                break; // revoke logs what the candidate throws
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** On the worker: tells the candidate it leads, unless the term is over. */
    private void grant(Term term) {
        synchronized (grantLock) {
            if (term.over) {
                return;
            }
            granting = Thread.currentThread();
        }
        granted = true;
        logger.debug("{}: candidate '{}' leads", path, candidate.getId());
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
    private void revoke() {
        if (!granted) {
            return;
        }
        granted = false;
        logger.debug("{}: candidate '{}' steps down: onRevoked", path, candidate.getId());
        try {
            candidate.onRevoked(context);
        } catch (RuntimeException e) {
            logger.warn("{}: onRevoked of candidate '{}' threw", path, candidate.getId(), e);
        }
        publish("OnRevoked", events -> events.publishOnRevoked(source, context, candidate.getRole()));
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

    private static void awaitUninterruptibly(ExecutorService leaving) {
        boolean interrupted = false;
        while (true) {
            try {
                if (leaving.awaitTermination(1, TimeUnit.DAYS)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
