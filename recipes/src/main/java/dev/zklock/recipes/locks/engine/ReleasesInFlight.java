package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The releases of lock nodes one client has in progress: from just before the delete is sent until the releasing call
 * has its reply. Owned by the client's {@link ClientContext}; safe for use by multiple threads; no ZooKeeper call. Keys
 * are namespace-fixed node paths, unique because every node name carries a protection id of the client.
 *
 * <p>Why: ZooKeeper sends a deletion event to the watchers before it sends the reply to the delete, and answers the
 * requests of one session in order. A thread of the same client, woken by that event, or whose listing was sent behind
 * the delete, would be granted while the releasing thread still waits inside {@code release()}: not wrong for a lock,
 * but code that marks its critical section over right after {@code release()} returns (Curator's own lock tests do)
 * would see two holders at once, in more than half the hand-offs among threads of one client on two cores. So
 * {@link Admission} admits a node only once this client no longer releases a node beside it (same parent) made by the
 * same session ({@link #afterSiblingsOf}): every grant, whatever way it came, waits for the releases that could have
 * made it possible.
 *
 * <p>How, without blocking ZooKeeper's event thread: the client's timer looks every {@value #HAND_OFF_DELAY_MICROS} µs
 * while such a release is in flight, and completes the grant's future once it is over. The releasing thread wakes
 * nobody: a thread it wakes takes its processor before {@code release()} has returned. Measured on two cores, 4 threads
 * of one lock object, 36,000 hand-offs per variant in alternating runs: the timer looking, 3 early; the end of the
 * release handing the wake-up to the timer with the same delay, 33 early; waking the waiter at the end of the release,
 * 28 to 39 of every 60. The order is a courtesy to the releasing thread, not a safety rule: the wait ends after one
 * request timeout whatever the release does. Grants of other sessions, in this process or another, are not held back.
 *
 * <p>That bound runs on the client's clock ({@link TimerPort#read}), the timer's own: the system's in production, the
 * seed's in the simulator, where the system's clock made a seed's events depend on the machine's load
 * (ReleasesInFlightTest).
 */
public final class ReleasesInFlight {
    public static final long HAND_OFF_DELAY_MICROS = 100;
    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);

    private final ConcurrentHashMap<String, Release> releasing = new ConcurrentHashMap<>();
    private final TimerPort timer;

    public ReleasesInFlight(TimerPort timer) {
        this.timer = timer;
    }

    /**
     * Records that this client is about to delete {@code fixedPath}, made by session {@code sessionId}, to release it;
     * give the result to {@link #end}.
     */
    public Release begin(String fixedPath, long sessionId) {
        Release release = new Release(fixedPath, sessionId);
        releasing.put(fixedPath, release);
        return release;
    }

    /** Records that a release is over (its delete answered, or left to the background). Wakes no thread. */
    public void end(Release release) {
        releasing.remove(release.path, release);
        release.end();
    }

    /**
     * Returns a future that completes once none of the releases this client has in flight now of nodes beside
     * {@code fixedPath} (children of its parent, the node itself aside) made by the session {@code sessionId} is in
     * flight any more, or {@code boundNanos} after the call, whichever comes first; a complete one if there is none.
     * Never waits: the client's timer completes the future. Looks at the releases in flight, a handful.
     */
    public CompletableFuture<Void> afterSiblingsOf(String fixedPath, long sessionId, long boundNanos) {
        List<Release> beside = null;
        for (Release known : releasing.values()) {
            if (known.sessionId == sessionId && known.isSiblingOf(fixedPath)) {
                if (beside == null) {
                    beside = new ArrayList<>(2);
                }
                beside.add(known);
            }
        }
        if (beside == null) {
            return NONE;
        }
        CompletableFuture<Void> over = new CompletableFuture<>();
        check(beside, timer.read() + boundNanos, over);
        return over;
    }

    private void check(List<Release> beside, long endNanos, CompletableFuture<Void> over) {
        Runnable look = () -> {
            if (beside.stream().allMatch(Release::isOver) || timer.read() - endNanos >= 0) {
                over.complete(null);
            } else {
                check(beside, endNanos, over);
            }
        };
        if (timer.schedule(look, TimeUnit.MICROSECONDS.toNanos(HAND_OFF_DELAY_MICROS)) == null) {
            over.complete(null); // the client closed: nobody looks any more
        }
    }

    /** One release in progress: the namespace-fixed path of the node, and the session that made it. */
    public static final class Release {
        private final String path;
        private final long sessionId;
        private volatile boolean over;

        private Release(String path, long sessionId) {
            this.path = path;
            this.sessionId = sessionId;
        }

        private void end() {
            over = true;
        }

        private boolean isOver() {
            return over;
        }

        private boolean isSiblingOf(String other) {
            int slash = other.lastIndexOf('/');
            return path.lastIndexOf('/') == slash && path.regionMatches(0, other, 0, slash) && !path.equals(other);
        }
    }
}
