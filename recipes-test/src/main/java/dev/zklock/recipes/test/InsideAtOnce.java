package dev.zklock.recipes.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessLock;

/**
 * Contention for exclusion tests: each lock of a list on a {@link LockActor} of its own (one thread per entry: a lock
 * object listed twice is shared by two threads), all started together, each looping acquire and release; tells the
 * most threads that were inside at once. Safe for use by multiple threads (it keeps no state between calls); its cost
 * is the locks' own.
 */
public final class InsideAtOnce {
    private InsideAtOnce() {}

    /**
     * Runs {@code rounds} cycles on each entry of {@code locks}, each entry on its own thread, started together.
     *
     * @return the most threads inside at once (1 if the locks exclude each other)
     * @throws Exception the first failure of an acquire or a release
     */
    public static int most(List<? extends InterProcessLock> locks, int rounds) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            for (int i = 0; i < locks.size(); i++) {
                InterProcessLock lock = locks.get(i);
                LockActor actor = LockActor.start("inside-at-once-" + i);
                actors.add(actor);
                done.add(actor.run(() -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                        lock.acquire();
                        most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        inside.decrementAndGet();
                        lock.release();
                    }
                }));
            }
            start.countDown();
            for (CompletableFuture<Void> future : done) {
                future.get();
            }
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
        }
        return most.get();
    }
}
