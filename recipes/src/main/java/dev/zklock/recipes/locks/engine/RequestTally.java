package dev.zklock.recipes.locks.engine;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the ZooKeeper requests one acquisition sends, for its JFR event and its trace ({@link AcquisitionRecord}): the
 * requests {@link ZooKeeperHandle} sends while a tally is the current one of the sending thread. An acquisition that
 * nothing records installs none, and a request then costs one volatile read: while no thread has a tally, the
 * thread-local is not read at all, since a first read makes the thread a map of thread-locals (136 bytes, on each of
 * 10,000 waiting virtual threads). A blocking acquisition sends every request on its own thread; an asynchronous one
 * carries its tally into each of its steps ({@link AsyncSteps}). Safe for use by multiple threads.
 */
final class RequestTally {
    private static final ThreadLocal<RequestTally> current = new ThreadLocal<>();

    /** How many threads have a tally now; a thread that has one counted it itself, so it never reads zero here. */
    private static final AtomicInteger installed = new AtomicInteger();

    private final AtomicInteger sent = new AtomicInteger();

    /** Makes {@code tally} (or none, with null) the calling thread's; returns the one it replaces, to restore. */
    static RequestTally enter(RequestTally tally) {
        RequestTally previous = current();
        if (tally == null && previous == null) {
            return null;
        }
        current.set(tally);
        installed.addAndGet((tally != null ? 1 : 0) - (previous != null ? 1 : 0));
        return previous;
    }

    /** The calling thread's tally, or null. */
    static RequestTally current() {
        return installed.get() == 0 ? null : current.get();
    }

    /** Counts one request in the calling thread's tally, if it has one. */
    static void sent() {
        RequestTally tally = current();
        if (tally != null) {
            tally.sent.incrementAndGet();
        }
    }

    /** The requests counted so far. */
    int count() {
        return sent.get();
    }
}
