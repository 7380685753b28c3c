package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockStateEvent;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * zklock's own JDK Flight Recorder events, in the category {@code zklock}: an acquisition ({@code dev.zklock.Acquisition},
 * its duration the wait), a hold from grant to release ({@code dev.zklock.Hold}), and a change of a hold's state
 * ({@code dev.zklock.HoldStateChange}). They cost no ZooKeeper request.
 *
 * <p>Cheap when no recording runs: until Flight Recorder is initialized (a recording started in the JVM, by
 * {@code -XX:StartFlightRecording}, {@code jcmd} or the API) the check is one read of a volatile field, and nothing of
 * JFR is touched, not even the registration of these event types, which costs a JVM that never records a few hundred
 * milliseconds; after that, one read of each event type's enabled flag. Nothing is allocated unless an event is
 * enabled. A JVM without the {@code jdk.jfr} module records nothing. Thread-safe.
 *
 * <p>An acquisition and a hold are recorded when they last {@value #THRESHOLD} or more, as the JDK's default settings
 * record a monitor's wait ({@code jdk.JavaMonitorWait}, {@code jdk.JavaMonitorEnter}): a local pass takes microseconds,
 * and a stack trace for each would cost a contended run more than the pass itself. A recording that wants every one
 * sets the threshold to 0 ({@code dev.zklock.Acquisition#threshold=0 ms} in a settings file, or
 * {@code recording.enable("dev.zklock.Acquisition").withThreshold(Duration.ZERO)}). A state change is always recorded.
 */
final class JfrEvents {
    private static final boolean AVAILABLE = available();
    private static final AtomicBoolean REGISTERING = new AtomicBoolean();
    private static volatile Types types;

    /** The default threshold of the acquisition and hold events. */
    static final String THRESHOLD = "20 ms";

    private JfrEvents() {}

    /** Whether a recording takes any of the events: the one check on the hot path. */
    static boolean anyEnabled() {
        Types types = types();
        return types != null && types.any();
    }

    static boolean acquisitionEnabled() {
        Types types = types();
        return types != null && types.acquisition.isEnabled();
    }

    static boolean holdEnabled() {
        Types types = types();
        return types != null && types.hold.isEnabled();
    }

    /**
     * Commits the state change of a hold, {@code event}, caused by {@code cause} (the connection event, or the node
     * found gone, or the client's close), if a recording takes it.
     */
    static void stateChanged(LockStateEvent event, String cause) {
        Types types = types();
        if (types == null || !types.stateChange.isEnabled()) {
            return;
        }
        HoldStateChange change = new HoldStateChange();
        if (change.shouldCommit()) {
            change.lockPath = event.lockPath();
            change.node = event.node();
            change.fencingToken = event.fencingToken();
            change.sessionId = "0x" + Long.toHexString(event.sessionId());
            change.previous = event.previous().name();
            change.state = event.state().name();
            change.cause = cause;
            change.commit();
        }
    }

    private static boolean available() {
        try {
            Class.forName("jdk.jfr.FlightRecorder", false, JfrEvents.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Registers the event types now if Flight Recorder is initialized: called by the first use, on a platform thread,
     * so that no virtual thread loads and registers them in a crowd. No ZooKeeper request.
     */
    static void prepare() {
        types();
    }

    /**
     * The event types once registered, on first use after Flight Recorder is initialized; null before, and for every
     * thread but the one that registers them while it does: those record nothing rather than wait for it (a virtual
     * thread waiting for another thread's class initialization pins its carrier).
     */
    private static Types types() {
        if (!AVAILABLE || !FlightRecorder.isInitialized()) {
            return null;
        }
        Types known = types;
        if (known == null && REGISTERING.compareAndSet(false, true)) {
            known = new Types();
            types = known;
        }
        return known;
    }

    /** The event types, registered. */
    private static final class Types {
        final EventType acquisition = EventType.getEventType(Acquisition.class);
        final EventType hold = EventType.getEventType(Hold.class);
        final EventType stateChange = EventType.getEventType(HoldStateChange.class);

        boolean any() {
            return acquisition.isEnabled() || hold.isEnabled() || stateChange.isEnabled();
        }
    }

    @Name("dev.zklock.Acquisition")
    @Label("Lock Acquisition")
    @Category("zklock")
    @Description("An acquire of a zklock lock, from its call to its end: the duration is the time it waited")
    @Threshold(THRESHOLD)
    static final class Acquisition extends Event {
        @Label("Lock Path")
        String lockPath;

        @Label("Lock Kind")
        @Description("exclusive, read, write, semaphore mutex, or custom (a driver of the user's)")
        String kind;

        @Label("Outcome")
        @Description("GRANTED, TIMED_OUT, INTERRUPTED or FAILED")
        String outcome;

        @Label("ZooKeeper Requests")
        @Description("The requests the acquire sent: 0 for a local pass, 2 for an uncontended acquire")
        int requests;

        @Label("Local Pass")
        @Description("The hold came from the process's cohort with no request of its own (local hand-off)")
        boolean localPass;
    }

    @Name("dev.zklock.Hold")
    @Label("Lock Hold")
    @Category("zklock")
    @Description("A hold of a zklock lock, from its grant to its release")
    @StackTrace(false)
    @Threshold(THRESHOLD)
    static final class Hold extends Event {
        @Label("Lock Path")
        String lockPath;

        @Label("Lock Kind")
        String kind;

        @Label("Fencing Token")
        @Description("The hold's fencing token: larger for every later exclusive or write hold of the path")
        long fencingToken;

        @Label("Local Pass")
        boolean localPass;

        @Label("State at Release")
        @Description("HELD, IN_DOUBT or LOST")
        String state;
    }

    @Name("dev.zklock.HoldStateChange")
    @Label("Lock Hold State Change")
    @Category("zklock")
    @Description("A held lock moved to HELD, IN_DOUBT or LOST, with the connection event that caused it")
    @StackTrace(false)
    static final class HoldStateChange extends Event {
        @Label("Lock Path")
        String lockPath;

        @Label("Node")
        String node;

        @Label("Fencing Token")
        long fencingToken;

        @Label("Session Id")
        String sessionId;

        @Label("Previous State")
        String previous;

        @Label("State")
        String state;

        @Label("Cause")
        @Description(
                "SUSPENDED, LOST or RECONNECTED (Curator's connection events), NODE_GONE, EXPIRED or CLIENT_CLOSED")
        String cause;
    }
}
