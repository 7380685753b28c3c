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
 * <p>Why: ZooKeeper sends a deletion event to the watchers before it sends the reply to the delete. A thread waiting on
 * the same client, woken by that event, would take the lock while the releasing thread still waits inside
 * {@code release()}: not wrong for a lock, but code that marks its critical section over right after
 * {@code release()} returns (Curator's own lock tests do) would see two holders at once, in more than half the
 * hand-offs among threads of one client on two cores. So a waiter whose watch is on the session that made the deleted
 * node, and that this process is releasing, goes on only after that release has its reply. And the releasing thread
 * never wakes the waiter, nor a thread that does: the scheduler favours a thread just woken, which would take the
 * releasing thread's processor before {@code release()} has returned. The thread that carries the event (the client's
 * event thread, or the waiter itself) looks for the end of the release, yielding, for a short while (event and reply
 * come on one connection, so the wait is short); a release slower than that is looked for by a hand-off thread on a
 * timer of its own. This costs a hand-off among the threads of one client the time between the event and the reply,
 * and nothing across clients: waiters on other clients, here or in other processes, are not held back (held back too,
 * eight readers' event threads yielding for one writer's release on two cores took the bench's 8 readers + 1 writer
 * from 1.18x-1.26x Curator's reader throughput down to 1.01x).
 */
final class ReleasesInFlight {
    private static final ConcurrentHashMap<String, Release> RELEASING = new ConcurrentHashMap<>();
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

    /**
     * Records that this process is about to delete {@code fixedPath}, made by session {@code sessionId}, to release it;
     * give the result to {@link #end}.
     */
    static Release begin(String fixedPath, long sessionId) {
        Release release = new Release(fixedPath, sessionId, new CompletableFuture<>());
        RELEASING.put(fixedPath, release);
        return release;
    }

    /**
     * Records that a release is over (its delete answered, or left to the background). Wakes no thread: those that
     * wait for it look.
     */
    static void end(Release release) {
        RELEASING.remove(release.path(), release);
        release.over().complete(null);
    }

    /**
     * Returns a future that completes once this process no longer releases {@code fixedPath}, if the node was made by
     * the session {@code watcherSessionId} of the waiter (else it is complete at once). The caller's thread first
     * looks by itself, yielding, for at most half a millisecond (the releasing thread is then being woken by its
     * reply); the future is then complete. Past that, the hand-off thread looks every {@value #POLL_MICROS} µs, and
     * completes the future, running the stages that depend on it.
     */
    static CompletableFuture<Void> after(String fixedPath, long watcherSessionId) {
        Release known = RELEASING.get(fixedPath);
        if (known == null || known.sessionId() != watcherSessionId) {
            return NONE;
        }
        CompletableFuture<Void> release = known.over();
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

    /**
     * One release in progress: the namespace-fixed path of the node, the session that made it, and a future completed
     * when the release is over (used as a flag: nothing depends on it).
     */
    record Release(String path, long sessionId, CompletableFuture<Void> over) {}
}
