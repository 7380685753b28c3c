package dev.zklock.recipes.locks.engine;

import java.util.function.Consumer;

/**
 * The idle timer of a {@link Cohort}'s node: carries out the machine's {@link LocalCommand.KeepIdle} and
 * {@link LocalCommand.CancelIdle}, and tells the node's expiry once it has been kept idle, uncancelled, for the whole
 * idle time. Generic in what it keeps ({@code N}, the cohort's {@link LockNode}) only so that a test needs no node.
 * Safe for use by multiple threads; no ZooKeeper call.
 *
 * <p>Why not one timer task per keep: an uncontended local cycle keeps the node idle at each release and cancels the
 * keep at the next acquire. A task scheduled and removed each time cost an allocation, two locks of the timer's queue
 * and a wake-up of its thread per cycle. Here a keep only notes the node and when its idle time ends, and schedules a
 * task if none is pending; a cancel only forgets the node. The pending task, when it runs, tells the expiry if the
 * keep it finds is due, schedules itself again for what is left of a later keep, and ends if none. Each keep's idle
 * time is as long as the one before, so the pending task never runs after the keep it finds is due: a node goes when
 * its idle time ends, as with a task per keep (IdleTimerTest,
 * CohortLockTest.keepIdle_timeRunsOut_releasesTheNodeOnTheClientsTimer).
 */
final class IdleTimer<N> implements Runnable {
    private final TimerPort timer;
    private final Consumer<N> expired;
    private N kept; // guarded by this: the node kept idle now, or null
    private long dueNanos; // guarded by this: when kept's idle time ends, on the timer's clock
    private boolean pending; // guarded by this: a task of this timer is scheduled, to run at or before dueNanos

    /**
     * @param timer the client's timer, whose clock the idle times are read on
     * @param expired told, on the timer's thread, of a node kept idle for its whole idle time
     */
    IdleTimer(TimerPort timer, Consumer<N> expired) {
        this.timer = timer;
        this.expired = expired;
    }

    /** Keeps {@code node} idle for {@code nanos} from now, in place of any keep before. */
    void keep(N node, long nanos) {
        long due = timer.read() + nanos;
        synchronized (this) {
            kept = node;
            dueNanos = due;
            if (!pending) {
                pending = timer.schedule(this, nanos) != null; // null: the client closed, and the node goes with it
            }
        }
    }

    /** Cancels the keep, if there is one: its expiry is not told. */
    synchronized void cancel() {
        kept = null;
    }

    /** The pending task, on the timer's thread. */
    @Override
    public void run() {
        N due;
        synchronized (this) {
            pending = false;
            if (kept == null) {
                return;
            }
            long left = dueNanos - timer.read();
            if (left > 0) {
                pending = timer.schedule(this, left) != null;
                return;
            }
            due = kept;
            kept = null;
        }
        expired.accept(due);
    }
}
