package dev.zklock.recipes.locks.engine;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * A timer on a clock the test moves: tasks run in order of their time, on the test's thread, when the test advances
 * the clock past them. Confined to the test's thread.
 */
final class ManualTimer implements TimerPort {
    private record Task(long at, long order, Runnable task) {}

    final PriorityQueue<Task> tasks = new PriorityQueue<>(
            (a, b) -> a.at() != b.at() ? Long.compare(a.at(), b.at()) : Long.compare(a.order(), b.order()));
    long now;
    int scheduled;
    boolean closed;

    @Override
    public long read() {
        return now;
    }

    @Override
    public Future<?> schedule(Runnable task, long delayNanos) {
        if (closed) {
            return null;
        }
        scheduled++;
        tasks.add(new Task(now + Math.max(0, delayNanos), scheduled, task));
        return new CompletableFuture<Void>();
    }

    void advanceTo(long time) {
        while (!tasks.isEmpty() && tasks.peek().at() <= time) {
            Task next = tasks.poll();
            now = next.at();
            next.task().run();
        }
        now = time;
    }
}
