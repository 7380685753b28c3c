package dev.zklock.recipes.locks.engine;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Notices that this process did not run for a while (a stop-the-world pause, a SIGSTOP, a suspended VM) while it held
 * locks, so that a hold is not said HELD after a pause its session may not have outlived. Safe for use by multiple
 * threads; no ZooKeeper request of its own.
 *
 * <p>ZooKeeper's client finds a silent connection only when its own thread runs again after the pause; until then,
 * and until Curator tells SUSPENDED, every other thread of the process that wakes with it would read HELD from a hold
 * whose session the ensemble may have expired meanwhile (the partition rig saw 6 and 9 ms of it after a client JVM was
 * stopped past its session). So while holds are tracked, the client's timer ticks every eighth of the session timeout,
 * and:
 *
 * <ul>
 *   <li>{@link #suspects(long)}, which the holds' states consult ({@link LockNode#observedState()}), says a pause is
 *       likely as soon as the last tick is older than half the session timeout: the first read after the pause, on
 *       any thread, says IN_DOUBT, before the timer itself has run;
 *   <li>the tick that finds such a gap tells the tracker ({@link ConnectionTracker#paused}), which moves every held
 *       lock to IN_DOUBT and checks the session's nodes as after a reconnect (one request), before the next tick is
 *       taken as news.
 * </ul>
 *
 * <p>Why half the session: the client pings after a third of the session of silence, and the ensemble expires a
 * session after a whole one, so only a pause longer than about two thirds of the session can outlive it; half flags
 * every such pause (the gap read is at least the pause) and leaves a timer thread a few ticks of slack under load. A
 * timer thread starved that long reads as a pause too: the holds go IN_DOUBT and the check makes them HELD again.
 */
final class PauseWatch implements Runnable {
    private final TimerPort timer;
    private final IntSupplier sessionTimeoutMs;
    private final BooleanSupplier holding;
    private final PausedListener tracker;
    private volatile long lastTick;
    private volatile boolean ticking;

    /** What hears a pause: the connection tracker. */
    interface PausedListener {
        void paused(long gapNanos);
    }

    /**
     * @param timer the client's timer, whose thread ticks, and its clock
     * @param sessionTimeoutMs the session timeout negotiated last (0 before the first connection: no pause is judged)
     * @param holding tells whether any hold is tracked, asked at each tick: the ticks stop when none is
     * @param tracker told of a pause, on the timer's thread
     */
    PauseWatch(TimerPort timer, IntSupplier sessionTimeoutMs, BooleanSupplier holding, PausedListener tracker) {
        this.timer = timer;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.holding = holding;
        this.tracker = tracker;
    }

    /** A hold is tracked: ticks start now if they are not running. */
    void holding() {
        synchronized (this) { // not read before: a last tick that found no hold may be about to stop the ticks
            if (ticking) {
                return;
            }
            long period = periodNanos();
            if (period <= 0) {
                return; // no session negotiated yet: nothing to judge by
            }
            lastTick = timer.read();
            ticking = true;
            if (timer.schedule(this, period) == null) {
                ticking = false; // the client has closed
            }
        }
    }

    /** Tells whether the process likely paused past half the session, as read at {@code nowNanos}. */
    boolean suspects(long nowNanos) {
        if (!ticking) {
            return false;
        }
        long limit = limitNanos();
        return limit > 0 && nowNanos - lastTick > limit;
    }

    /** A tick, on the timer's thread: tells the tracker of a gap first, then takes the tick. */
    @Override
    public void run() {
        long now = timer.read();
        long limit = limitNanos();
        if (limit > 0 && now - lastTick > limit) {
            tracker.paused(now - lastTick);
        }
        lastTick = now;
        synchronized (this) {
            long period = periodNanos();
            if (!holding.getAsBoolean() || period <= 0 || timer.schedule(this, period) == null) {
                ticking = false;
            }
        }
    }

    private long limitNanos() {
        return TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs.getAsInt()) / 2;
    }

    private long periodNanos() {
        return TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs.getAsInt()) / 8;
    }
}
