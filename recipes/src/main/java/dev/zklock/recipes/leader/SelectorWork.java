package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkLockException;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.utils.CloseableExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The terms of one {@link ZkLeaderSelector}: each a task on the selector's executor that takes the mutex (a blocking
 * acquire of the lock engine, which admits the hold), calls {@code takeLeadership} on that thread, and releases the
 * mutex when it returns. Safe for use by multiple threads.
 *
 * <pre>
 * Implementation notes.
 *
 * 1. One task at a time (ourTask, guarded by this), as Curator's selector: requeue submits one only when none is
 *    queued or running; with autoRequeue a task that ends submits the next before it releases the mutex.
 * 2. A term ends when takeLeadership returns or throws, or when its thread is interrupted: by interruptLeadership, by
 *    the close, by yield (which has the selector enter again once the mutex is released, so the delete is sent before
 *    the new create), by a listener's CancelLeadershipException, and by the hold leaving HELD (IN_DOUBT at SUSPENDED, LOST):
 *    the step-down of ZkLeaderSelectorTest.leader_whenConnectionIsSuspended_isInterrupted. hasLeadership reads the
 *    hold's state, so it is false from the moment the hold moves.
 * 3. Each term takes a node of its own, with the id as its data (read at the term's start, as Curator reads it at
 *    each create), so its epoch is its hold's fencing token, larger for every later term.
 * </pre>
 */
final class SelectorWork {
    private static final Logger logger = LoggerFactory.getLogger(SelectorWork.class);
    private static final String LOCK_NAME = "lock-";

    private final CuratorFramework client;
    private final String path;
    private final LeaderSelectorListener listener;
    private final CloseableExecutorService executor;
    private final BooleanSupplier started; // the selector is started and not closed
    private final BooleanSupplier autoRequeue;
    private Future<?> ourTask; // guarded by this
    private Thread ourThread; // guarded by this
    private boolean yielded; // guarded by this: the term under way ends by yield, and the selector enters again
    private volatile Hold term; // the hold of the term under way, or null
    private volatile boolean leading;
    private volatile CompletableFuture<Void> taskOver = CompletableFuture.completedFuture(null); // of the last task

    SelectorWork(
            CuratorFramework client,
            String path,
            LeaderSelectorListener listener,
            CloseableExecutorService executor,
            BooleanSupplier started,
            BooleanSupplier autoRequeue) {
        this.client = client;
        this.path = path;
        this.listener = listener;
        this.executor = executor;
        this.started = started;
        this.autoRequeue = autoRequeue;
    }

    /** Submits a task unless one is queued or running; returns whether it did. */
    synchronized boolean requeue(String id) {
        if (ourTask != null || !started.getAsBoolean()) {
            return false;
        }
        ourTask = executor.submit(() -> {
            work(id);
            return null;
        });
        return true;
    }

    /** Interrupts the thread of the task under way, if any: its acquire gives up, or its takeLeadership ends. */
    synchronized void cancel() {
        if (ourThread != null) {
            ourThread.interrupt();
        }
    }

    /** Interrupts the leader's thread if this selector leads. */
    synchronized void interruptLeadership() {
        if (leading) {
            cancel();
        }
    }

    /**
     * Ends the term under way by choice if this selector leads: interrupts its thread and has the selector enter again
     * once the mutex is released, with or without auto-requeue. Returns whether it led.
     */
    synchronized boolean yieldTerm() {
        if (!leading) {
            return false;
        }
        yielded = true;
        cancel();
        return true;
    }

    synchronized void closed() {
        ourTask = null;
    }

    /**
     * Waits at most {@code nanos} for the last task to be over: its {@code takeLeadership} returned and its mutex's
     * delete answered. Returns whether it is.
     */
    boolean awaitTaskOver(long nanos) throws InterruptedException {
        try {
            taskOver.get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true; // never completed exceptionally
        }
    }

    /** The hold of the current term while this selector leads, else null. No ZooKeeper call. */
    Hold leadingTerm() {
        Hold now = term;
        return leading && now != null && now.state() == LockState.HELD ? now : null;
    }

    private void work(String id) throws InterruptedException {
        CompletableFuture<Void> over = new CompletableFuture<>();
        synchronized (this) {
            ourThread = Thread.currentThread();
            taskOver = over;
        }
        LockCore core = coreFor(id);
        Hold held = null;
        try {
            held = core.acquire(Deadline.forever()).orElseThrow(() -> new AssertionError("no deadline, yet no hold"));
            term = held;
            leading = true;
            if (held.state() == LockState.HELD) { // else it moved before the term was known: it ends at once
                lead(id);
            }
        } catch (IllegalStateException e) {
            if (client.getState() == CuratorFrameworkState.STARTED) {
                logger.warn("{}: participant '{}' could not take the mutex", path, id, e);
            } else {
                logger.debug("{}: participant '{}' leaves the election: its client is closed", path, id);
            }
        } catch (ZkLockException e) {
            logger.warn("{}: participant '{}' could not take the mutex", path, id, e);
        } finally {
            leading = false;
            term = null;
            boolean requeue = done();
            if (held != null) {
                boolean interrupted = Thread.interrupted(); // so the release's delete is sent and waited for
                try {
                    core.release(held, held.heldNanos());
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
            over.complete(null);
            if (requeue) {
                requeue(id);
            }
        }
    }

    private void lead(String id) {
        try {
            listener.takeLeadership(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            logger.warn("{}: takeLeadership of participant '{}' threw; the term ends", path, id, e);
        }
    }

    private synchronized boolean done() {
        ourTask = null;
        ourThread = null;
        boolean again = yielded || autoRequeue.getAsBoolean();
        yielded = false;
        // A closed client refuses every acquire at once: requeued, the selector would spin (the partition rig saw one
        // write 529,000 log lines in seconds).
        return again && started.getAsBoolean() && client.getState() == CuratorFrameworkState.STARTED;
    }

    private LockCore coreFor(String id) {
        List<LockStateListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        byte[] data = id.isEmpty() ? null : id.getBytes(StandardCharsets.UTF_8);
        LockCore core = LockCore.of(new LockPath(client, path, LOCK_NAME, LockDriver.exclusive(), data, listeners));
        listeners.add(this::stateChanged);
        return core;
    }

    /** On the notifier's thread: interrupting a thread does not block. */
    private void stateChanged(LockStateEvent event) {
        Hold now = term;
        if (StepDown.endsTerm(event, now, client)) {
            logger.warn("{}: the leader's hold {} is {}; interrupting takeLeadership", path, now, event.state());
            cancel();
        }
    }
}
