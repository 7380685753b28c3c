package dev.zklock.recipes.locks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The releases of lock nodes now in progress in this process: from just before the delete is sent until the releasing
 * call has its reply. Process-wide and safe for use by multiple threads; no ZooKeeper call. Keys are namespace-fixed
 * node paths, unique because every node name carries a protection id of this process.
 *
 * <p>Why: ZooKeeper sends a deletion event to the watchers before it sends the reply to the delete. A waiter of this
 * process woken by that event would take the lock while the releasing thread still waits inside {@code release()}:
 * not wrong for a lock, but code that marks its critical section over right after {@code release()} returns
 * (Curator's own lock tests do) would see two holders at once, in more than half the hand-offs on two cores. So a
 * waiter woken by the deletion of a node this process is releasing goes on only after that release has its reply. And
 * the releasing thread never wakes the waiter, nor a thread that does: the scheduler favours a thread just woken, which
 * would take the releasing thread's processor before {@code release()} has returned. The thread that carries the event
 * (ZooKeeper's event thread, or the waiter itself) looks for the end of the release, yielding, for a short while; a
 * release slower than that is looked for by a hand-off thread on a timer of its own. This costs a hand-off within one
 * process the time between the event and the reply, and nothing across processes.
 */
final class ReleasesInFlight {
    private static final ConcurrentHashMap<String, CompletableFuture<Void>> RELEASING = new ConcurrentHashMap<>();
    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);
    private static final long YIELD_NANOS = TimeUnit.MICROSECONDS.toNanos(500);
    private static final long POLL_MICROS = 200;
    private static final ScheduledThreadPoolExecutor POLLER = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "zklock-hand-off");
        thread.setDaemon(true);
        return thread;
    });

    static {
        POLLER.setKeepAliveTime(30, TimeUnit.SECONDS);
        POLLER.allowCoreThreadTimeOut(true);
    }

    private ReleasesInFlight() {}

    /** Records that this process is about to delete {@code fixedPath} to release it, for {@link #end}. */
    static CompletableFuture<Void> begin(String fixedPath) {
        CompletableFuture<Void> release = new CompletableFuture<>();
        RELEASING.put(fixedPath, release);
        return release;
    }

    /**
     * Records that the release of {@code fixedPath} is over (its delete answered, or left to the background). Wakes no
     * thread: those that wait for it look.
     */
    static void end(String fixedPath, CompletableFuture<Void> release) {
        RELEASING.remove(fixedPath, release);
        release.complete(null);
    }

    /**
     * Returns a future that completes once this process no longer releases {@code fixedPath}. The caller's thread first
     * looks by itself, yielding, for at most half a millisecond (the releasing thread is then being woken by its
     * reply); the future is then complete. Past that, the hand-off thread looks every {@value #POLL_MICROS} µs, and
     * completes the future, running the stages that depend on it.
     */
    static CompletableFuture<Void> after(String fixedPath) {
        CompletableFuture<Void> release = RELEASING.get(fixedPath);
        if (release == null) {
            return NONE;
        }
        long start = System.nanoTime();
        while (!release.isDone()) {
            if (System.nanoTime() - start > YIELD_NANOS) {
                CompletableFuture<Void> over = new CompletableFuture<>();
                poll(release, over);
                return over;
            }
            Thread.yield();
        }
        return NONE;
    }

    private static void poll(CompletableFuture<Void> release, CompletableFuture<Void> over) {
        POLLER.schedule(
                () -> {
                    if (release.isDone()) {
                        over.complete(null);
                    } else {
                        poll(release, over);
                    }
                },
                POLL_MICROS,
                TimeUnit.MICROSECONDS);
    }
}
