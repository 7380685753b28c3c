package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockTracer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hold as the JFR events and the client's tracers see it, from its grant to its release: its
 * {@code dev.zklock.Hold} event and its tracers' spans, carried by the {@link Hold}. Made only when something records
 * ({@link #start} answers null otherwise). Begun on the thread the hold is granted to and ended on the one that
 * releases it, after it in the lock's own order. Costs no ZooKeeper request.
 */
final class HoldRecord {
    private static final Logger logger = LoggerFactory.getLogger(HoldRecord.class);

    private final String lockPath;
    private final String kind;
    private final boolean localPass;
    private final JfrEvents.Hold event; // null if no recording takes it
    private final List<LockTracer.HoldSpan> spans = new ArrayList<>(1);

    private HoldRecord(String lockPath, String kind, boolean localPass, JfrEvents.Hold event) {
        this.lockPath = lockPath;
        this.kind = kind;
        this.localPass = localPass;
        this.event = event;
    }

    /** Begins the record of a hold just granted; null if no recording takes its event and there is no tracer. */
    static HoldRecord start(String lockPath, String kind, boolean localPass, List<LockTracer> tracers) {
        JfrEvents.Hold event = JfrEvents.holdEnabled() ? new JfrEvents.Hold() : null;
        if (event == null && tracers.isEmpty()) {
            return null;
        }
        HoldRecord record = new HoldRecord(lockPath, kind, localPass, event);
        for (LockTracer tracer : tracers) {
            try {
                LockTracer.HoldSpan span = tracer.holdStarted(lockPath, kind);
                if (span != null) {
                    record.spans.add(span);
                }
            } catch (RuntimeException e) {
                logger.warn("{}: lock tracer {} threw", lockPath, tracer, e);
            }
        }
        if (event != null) {
            event.begin();
        }
        return record;
    }

    /**
     * Ends the record of {@code hold}, which is being released; nothing if nothing recorded it. Never throws: the release
     * goes on whatever happens here.
     */
    static void released(Hold hold) {
        HoldRecord record = PassHold.recordOf(hold);
        if (record == null) {
            return;
        }
        long token;
        try {
            token = hold.token();
        } catch (RuntimeException e) {
            logger.warn("{}: the hold's fencing token is not known; its record ends unreported", record.lockPath, e);
            return;
        }
        LockState state = hold.state();
        JfrEvents.Hold event = record.event;
        if (event != null) {
            event.end();
            if (event.shouldCommit()) {
                event.lockPath = record.lockPath;
                event.kind = record.kind;
                event.fencingToken = token;
                event.localPass = record.localPass;
                event.state = String.valueOf(state);
                event.commit();
            }
        }
        for (LockTracer.HoldSpan span : record.spans) {
            try {
                span.released(token, state);
            } catch (RuntimeException e) {
                logger.warn("{}: lock tracer span {} threw", record.lockPath, span, e);
            }
        }
    }
}
