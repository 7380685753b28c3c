package dev.zklock.recipes.locks.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
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
 * <p>How, without blocking ZooKeeper's event thread: the client's timer looks every {@value #HAND_OFF_DELAY_MICROS} µs,
 * at most {@value #QUICK_LOOKS} times, while such a release is in flight, and completes the grant's future once it is
 * over. The releasing thread wakes nobody: a thread it wakes takes its processor before {@code release()} has returned.
 * Measured on two cores, 4 threads of one lock object, 36,000 hand-offs per variant in alternating runs: the timer
 * looking, 3 early; the end of the release handing the wake-up to the timer with the same delay, 33 early; waking the
 * waiter at the end of the release, 28 to 39 of every 60. A release still in flight after the quick looks (a server
 * slow to answer) is waited for by its end instead, which hands the grant to the timer with the same delay: looking
 * every {@value #HAND_OFF_DELAY_MICROS} µs for as long as such a release lasts made one client with 10,000 keys' grants
 * held back by their holders' releases spend a processor on its timer, until its server went unheard and its session
 * expired ({@code ReleasesInFlightTest.afterSiblingsOf_releaseStillInFlightAfterTheQuickLooks_overWhenItEnds}). The
 * order is a courtesy to the releasing thread, not a safety rule: the wait ends after one request timeout whatever the
 * release does. Grants of other sessions, in this process or another, are not held back.
 *
 * <p>Releases are kept by their node's parent, so a grant looks at the releases of its own queue only, however many
 * other queues the client releases in at once.
 *
 * <p>That bound runs on the client's clock ({@link TimerPort#read}), the timer's own: the system's in production, the
 * seed's in the simulator, where the system's clock made a seed's events depend on the machine's load
 * (ReleasesInFlightTest).
 */
public final class ReleasesInFlight {
    public static final long HAND_OFF_DELAY_MICROS = 100;
    /** How many times the timer looks before a grant waits for the release's end instead. */
    public static final int QUICK_LOOKS = 20;

    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);

    /** The releases in flight by the path of their node's parent; each list is never changed once in the map. */
    private final ConcurrentHashMap<String, List<Release>> releasing = new ConcurrentHashMap<>();

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
        releasing.compute(release.parent, (parent, known) -> with(known, release));
        return release;
    }

    /** Records that a release is over (its delete answered, or left to the background). Wakes no thread. */
    public void end(Release release) {
        releasing.computeIfPresent(release.parent, (parent, known) -> without(known, release));
        release.end();
    }

    /**
     * Returns a future that completes once none of the releases this client has in flight now of nodes beside
     * {@code fixedPath} (children of its parent, the node itself aside) made by the session {@code sessionId} is in
     * flight any more, or {@code boundNanos} after the call, whichever comes first; a complete one if there is none.
     * Never waits: the client's timer completes the future. Looks at the releases in flight in that parent only.
     */
    public CompletableFuture<Void> afterSiblingsOf(String fixedPath, long sessionId, long boundNanos) {
        if (releasing.isEmpty()) {
            return NONE;
        }
        List<Release> known = releasing.get(fixedPath.substring(0, Math.max(0, fixedPath.lastIndexOf('/'))));
        if (known == null) {
            return NONE;
        }
        List<Release> beside = null;
        for (Release release : known) {
            if (release.sessionId == sessionId && !release.path.equals(fixedPath)) {
                if (beside == null) {
                    beside = new ArrayList<>(2);
                }
                beside.add(release);
            }
        }
        if (beside == null) {
            return NONE;
        }
        CompletableFuture<Void> over = new CompletableFuture<>();
        look(beside, timer.read() + boundNanos, over, QUICK_LOOKS);
        return over;
    }

    private void look(List<Release> beside, long endNanos, CompletableFuture<Void> over, int looksLeft) {
        Runnable look = () -> {
            if (beside.stream().allMatch(Release::isOver) || timer.read() - endNanos >= 0) {
                over.complete(null);
            } else if (looksLeft > 1) {
                look(beside, endNanos, over, looksLeft - 1);
            } else {
                awaitEnds(beside, endNanos, over);
            }
        };
        if (timer.schedule(look, TimeUnit.MICROSECONDS.toNanos(HAND_OFF_DELAY_MICROS)) == null) {
            over.complete(null); // the client closed: nobody looks any more
        }
    }

    /**
     * Completes {@code over} {@value #HAND_OFF_DELAY_MICROS} µs after the last of {@code beside} ends, or at
     * {@code endNanos} on the timer's clock: two timer tasks in all, however long the releases last.
     */
    private void awaitEnds(List<Release> beside, long endNanos, CompletableFuture<Void> over) {
        CompletableFuture<?>[] ends = new CompletableFuture<?>[beside.size()];
        for (int i = 0; i < ends.length; i++) {
            ends[i] = beside.get(i).ended();
        }
        Future<?> bound = timer.schedule(() -> over.complete(null), endNanos - timer.read());
        if (bound == null) {
            over.complete(null);
            return;
        }
        CompletableFuture.allOf(ends).thenRun(() -> {
            bound.cancel(false);
            if (timer.schedule(() -> over.complete(null), TimeUnit.MICROSECONDS.toNanos(HAND_OFF_DELAY_MICROS))
                    == null) {
                over.complete(null);
            }
        });
    }

    private static List<Release> with(List<Release> known, Release release) {
        if (known == null) {
            return List.of(release);
        }
        List<Release> more = new ArrayList<>(known.size() + 1);
        more.addAll(known);
        more.add(release);
        return more;
    }

    private static List<Release> without(List<Release> known, Release release) {
        if (known.size() == 1) {
            return known.get(0) == release ? null : known;
        }
        List<Release> fewer = new ArrayList<>(known);
        fewer.remove(release);
        return fewer;
    }

    /** One release in progress: the namespace-fixed path of the node, its parent's, and the session that made it. */
    public static final class Release {
        private final String path;
        private final String parent;
        private final long sessionId;
        private volatile boolean over;
        private CompletableFuture<Void> ended; // guarded by this; made only for a wait past the quick looks

        private Release(String path, long sessionId) {
            this.path = path;
            this.parent = path.substring(0, Math.max(0, path.lastIndexOf('/')));
            this.sessionId = sessionId;
        }

        private void end() {
            over = true;
            CompletableFuture<Void> waited;
            synchronized (this) {
                waited = ended;
            }
            if (waited != null) {
                waited.complete(null);
            }
        }

        private boolean isOver() {
            return over;
        }

        /** Returns a future that completes when this release ends; complete if it has. */
        private synchronized CompletableFuture<Void> ended() {
            if (ended == null) {
                ended = over ? NONE : new CompletableFuture<>();
            }
            return ended;
        }
    }
}
