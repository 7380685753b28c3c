package dev.zklock.recipes.locks.engine;

import java.util.concurrent.Future;

/**
 * A bound on a synchronous ZooKeeper call made on the acquiring thread: the client's timer interrupts the thread if
 * the call has not returned by then, and the call reads as unanswered. Not thread-safe to share: one per call; its
 * state is guarded by itself between the calling thread and the timer.
 *
 * <p>Why synchronous calls at all: ZooKeeper's client wakes a thread that waits for a synchronous reply itself, where
 * an asynchronous reply first passes through its event thread. That is one thread hop less per reply, and it keeps a
 * blocking acquire working while a listener of the application blocks that event thread
 * ({@code ZkReentrantLockTest}). Why a bound: such a call has none of its own. A request sent after the client gave a
 * silent connection up and before Curator says so (the client backs off up to a second before it connects again)
 * waits in the client's queue until a server answers, possibly past the acquire's timeout plus one request timeout,
 * the bound every acquire keeps.
 *
 * <p>An interrupt that comes from the bound is consumed here: the call answers null, and the caller's interrupt
 * status is as it was. An interrupt of the caller's own that falls in the same instant as the bound is taken for the
 * bound's.
 */
final class SyncBound implements Runnable {
    /** A synchronous call that may be interrupted. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws InterruptedException;
    }

    private final Thread caller;
    private boolean over; // guarded by this: the call has returned or thrown
    private boolean rang; // guarded by this: the bound interrupted the caller

    private SyncBound(Thread caller) {
        this.caller = caller;
    }

    /**
     * Runs {@code call} on the calling thread, interrupted by {@code timer} after {@code boundNanos}; no bound if
     * {@code boundNanos} is {@link Long#MAX_VALUE} or the client's timer has closed. One timer task per call, no
     * ZooKeeper request.
     *
     * @return the call's answer, or null if the bound ended it
     * @throws InterruptedException if the caller was interrupted, not by the bound
     */
    static <T> T call(TimerPort timer, long boundNanos, Call<T> call) throws InterruptedException {
        if (boundNanos == Long.MAX_VALUE) {
            return call.run();
        }
        SyncBound bound = new SyncBound(Thread.currentThread());
        Future<?> alarm = timer.schedule(bound, boundNanos);
        try {
            T answer = call.run();
            if (bound.end()) {
                Thread.interrupted(); // the bound rang as the reply came: the interrupt was ours
            }
            return answer;
        } catch (InterruptedException e) {
            if (bound.end()) {
                return null;
            }
            throw e;
        } finally {
            bound.end();
            if (alarm != null) {
                alarm.cancel(false);
            }
        }
    }

    /** The bound, on the timer's thread: interrupts the caller if the call is still on. */
    @Override
    public synchronized void run() {
        if (!over) {
            rang = true;
            caller.interrupt();
        }
    }

    /** Marks the call over; tells whether the bound interrupted it first. */
    private synchronized boolean end() {
        over = true;
        return rang;
    }
}
