package dev.zklock.recipes.leader;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * An {@link Executor} the selector was given but does not own, as an executor service: it runs tasks on the executor,
 * and its shutdown only stops taking tasks, never shuts the executor down. Safe for use by multiple threads.
 */
final class BorrowedExecutor extends AbstractExecutorService {
    private final Executor executor;
    private volatile boolean shutdown;

    BorrowedExecutor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public void execute(Runnable command) {
        executor.execute(command);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown; // what it ran belongs to the executor, which is not ours to wait for
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
