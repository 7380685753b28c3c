package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockTimeoutException;
import dev.zklock.recipes.locks.LockTracer;
import dev.zklock.recipes.locks.LockTracer.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition as the JFR events and the client's tracers see it: its {@code dev.zklock.Acquisition} event, its
 * tracers' spans, and the tally of its requests; at its grant, the record of the hold ({@link HoldRecord}). Made only
 * when something records ({@link #start} answers null otherwise, having allocated nothing), so {@link LockCore} calls
 * the static methods, which take null for "nothing records". Used by the acquiring thread, and for
 * {@code acquireAsync} ended on the pool thread that completes it (after the acquisition, through its future). Costs
 * no ZooKeeper request.
 */
final class AcquisitionRecord {
    private static final Logger logger = LoggerFactory.getLogger(AcquisitionRecord.class);

    private final String lockPath;
    private final String kind;
    private final List<LockTracer> tracers;
    private final JfrEvents.Acquisition event; // null if no recording takes it
    private final List<LockTracer.AcquisitionSpan> spans = new ArrayList<>(1);
    private final RequestTally tally = new RequestTally();
    private final Thread thread = Thread.currentThread(); // the acquiring thread, whose tally this is until it leaves
    private RequestTally outer; // confined to thread: the tally it had before
    private boolean left; // confined to thread

    private AcquisitionRecord(String lockPath, String kind, List<LockTracer> tracers, boolean jfr) {
        this.lockPath = lockPath;
        this.kind = kind;
        this.tracers = tracers;
        this.event = jfr && JfrEvents.acquisitionEnabled() ? new JfrEvents.Acquisition() : null;
    }

    /**
     * Begins the record of an acquisition on the calling thread, whose requests it counts from now until {@link #ended}
     * or {@link #failed}; null, with nothing allocated, if no recording takes zklock's events and the client has no
     * tracer.
     */
    static AcquisitionRecord start(LockPath path, String kind) {
        List<LockTracer> tracers = path.metrics().tracers();
        boolean jfr = JfrEvents.anyEnabled();
        if (!jfr && tracers.isEmpty()) {
            return null;
        }
        AcquisitionRecord record = new AcquisitionRecord(path.path(), kind, List.copyOf(tracers), jfr);
        for (LockTracer tracer : record.tracers) {
            try {
                LockTracer.AcquisitionSpan span = tracer.acquisitionStarted(record.lockPath, kind);
                if (span != null) {
                    record.spans.add(span);
                }
            } catch (RuntimeException e) {
                logger.warn("{}: lock tracer {} threw", record.lockPath, tracer, e);
            }
        }
        if (record.event != null) {
            record.event.begin();
        }
        record.outer = RequestTally.enter(record.tally);
        return record;
    }

    /**
     * Stops counting the acquiring thread's requests, if called on it and not done yet (an async acquisition's steps
     * count their own; its end comes on another thread, which this leaves alone).
     */
    static void leaveThread(AcquisitionRecord record) {
        if (record != null && record.thread == Thread.currentThread() && !record.left) {
            record.left = true;
            RequestTally.enter(record.outer);
        }
    }

    /** The kind of a lock whose queue decides with {@code driver}, for events and traces. */
    static String kindOf(LockDriver driver) {
        if (driver == LockDriver.exclusive()) {
            return "exclusive";
        }
        if (driver == LockDriver.read()) {
            return "read";
        }
        return driver == LockDriver.write() ? "write" : "custom";
    }

    /**
     * Ends the record of a blocking acquisition that came back with {@code hold}, or empty for a timeout; returns the
     * hold, carrying the record of its hold if anything records one.
     */
    static Optional<Hold> ended(AcquisitionRecord record, Optional<Hold> hold) {
        if (record == null) {
            return hold;
        }
        leaveThread(record);
        return hold.map(record::granted).or(() -> {
            record.end(Outcome.TIMED_OUT, false, null);
            return Optional.empty();
        });
    }

    /** Ends the record of an acquisition that threw {@code failure}, or whose future ended with it. */
    static void failed(AcquisitionRecord record, Throwable failure) {
        if (record == null) {
            return;
        }
        leaveThread(record);
        Outcome outcome = failure instanceof InterruptedException || failure instanceof CancellationException
                ? Outcome.INTERRUPTED
                : failure instanceof LockTimeoutException ? Outcome.TIMED_OUT : Outcome.FAILED;
        record.end(outcome, false, outcome == Outcome.FAILED ? failure : null);
    }

    /** The tally of an acquisition's requests, for the steps of an async one; null if nothing records it. */
    static RequestTally tallyOf(AcquisitionRecord record) {
        return record == null ? null : record.tally;
    }

    /** Ends the record with a grant of {@code hold}: returns the hold with the record of it, if anything records one. */
    Hold granted(Hold hold) {
        boolean localPass = PassHold.isLocal(hold);
        end(Outcome.GRANTED, localPass, null);
        HoldRecord held = HoldRecord.start(lockPath, kind, localPass, tracers);
        return held == null ? hold : PassHold.recorded(hold, held);
    }

    private void end(Outcome outcome, boolean localPass, Throwable failure) {
        int requests = tally.count();
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.lockPath = lockPath;
                event.kind = kind;
                event.outcome = outcome.name();
                event.requests = requests;
                event.localPass = localPass;
                event.commit();
            }
        }
        for (LockTracer.AcquisitionSpan span : spans) {
            try {
                span.ended(outcome, requests, localPass, failure);
            } catch (RuntimeException e) {
                logger.warn("{}: lock tracer span {} threw", lockPath, span, e);
            }
        }
    }
}
