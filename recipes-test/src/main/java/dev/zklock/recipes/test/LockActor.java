package dev.zklock.recipes.test;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A thread of its own that runs lock calls on command, for tests where ownership is per thread: the actor acquires on
 * its thread, reports through futures, and releases when told.
 *
 * <pre>{@code
 * try (LockActor holder = LockActor.start("holder")) {
 *     holder.submit(() -> lock.acquire(5, TimeUnit.SECONDS)).join();
 *     ...
 *     holder.submit(() -> { lock.release(); return null; }).join();
 * }
 * }</pre>
 *
 * <p>The thread is a platform thread, or a virtual thread under {@link #ACTORS_PROPERTY}. Failures of {@link #submit}
 * actions reach the test through the returned future; failures of {@link #execute} actions, which nobody waits for,
 * make {@link #close()} fail. Safe for use by multiple threads; the actions run one at a time, in order, on the actor's
 * one thread.
 */
public final class LockActor implements AutoCloseable {
    /** An action that may throw anything, as lock calls do. */
    @FunctionalInterface
    public interface Action<T> {
        /**
         * Runs the action on the actor's thread.
         *
         * @return the action's result
         * @throws Exception whatever the action throws
         */
        T call() throws Exception;
    }

    /** An action without a result, such as a release. */
    @FunctionalInterface
    public interface Task {
        /**
         * Runs the task on the actor's thread.
         *
         * @throws Exception whatever the task throws
         */
        void run() throws Exception;
    }

    /**
     * The system property that makes every actor's thread a virtual one ({@code zklock.test.actors=virtual}): how the
     * lock suites run on JDK 25 with their acquiring threads virtual, whose blocking acquire parks once
     * ({@code CallbackRunner.await}). Fails on a JVM without virtual threads.
     */
    public static final String ACTORS_PROPERTY = "zklock.test.actors";

    private static final boolean VIRTUAL = "virtual".equals(System.getProperty(ACTORS_PROPERTY));

    private final String name;
    private final ExecutorService executor;
    private final List<Throwable> unobservedFailures = new CopyOnWriteArrayList<>();
    private volatile Thread thread;

    private LockActor(String name, boolean virtual) {
        this.name = name;
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = virtual ? VirtualThreads.factory().newThread(runnable) : new Thread(runnable);
            t.setName("lock-actor-" + name);
            thread = t;
            return t;
        });
        executor.submit(() -> {}); // start the thread now, so interrupt() always has one to interrupt
    }

    /**
     * Starts an actor whose thread is named {@code lock-actor-<name>}.
     *
     * @param name a name for messages and thread dumps
     * @return a running actor
     */
    public static LockActor start(String name) {
        return new LockActor(Objects.requireNonNull(name, "name"), VIRTUAL);
    }

    /**
     * Starts an actor on a platform thread whatever {@link #ACTORS_PROPERTY} says: for a test of what the blocking
     * runner does on the acquiring thread (its {@code QueueHooks} calls), which a virtual thread's acquire does not run.
     *
     * @param name a name for messages and thread dumps
     * @return a running actor
     */
    public static LockActor startPlatform(String name) {
        return new LockActor(Objects.requireNonNull(name, "name"), false);
    }

    /**
     * Runs {@code action} on the actor's thread after the actions before it.
     *
     * @param action the call to make
     * @param <T> the result type
     * @return the action's outcome
     */
    public <T> CompletableFuture<T> submit(Action<T> action) {
        CompletableFuture<T> result = new CompletableFuture<>();
        executor.execute(() -> {
            try {
                result.complete(action.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * Runs {@code task} on the actor's thread after the actions before it, such as {@code actor.run(lock::release)}.
     *
     * @param task the call to make
     * @return the task's outcome
     */
    public CompletableFuture<Void> run(Task task) {
        return submit(() -> {
            task.run();
            return null;
        });
    }

    /**
     * Runs {@code action} on the actor's thread; a failure makes {@link #close()} fail.
     *
     * @param action the call to make
     */
    public void execute(Action<?> action) {
        submit(action).whenComplete((ignored, failure) -> {
            if (failure != null) {
                unobservedFailures.add(failure);
            }
        });
    }

    /** Interrupts the actor's thread, in whatever action it runs now. */
    public void interrupt() {
        thread.interrupt();
    }

    /**
     * Returns the actor's thread.
     *
     * @return the one thread that runs this actor's actions
     */
    public Thread thread() {
        return thread;
    }

    /**
     * Stops the actor after the actions already given, waiting up to 30 seconds.
     *
     * @throws AssertionError if an {@link #execute} action failed, or the actor does not stop in time
     */
    @Override
    public void close() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
            executor.shutdownNow();
            throw new AssertionError("lock actor '" + name + "' did not stop within 30 s");
        }
        if (!unobservedFailures.isEmpty()) {
            AssertionError error = new AssertionError("lock actor '" + name + "' failed");
            unobservedFailures.forEach(error::addSuppressed);
            throw error;
        }
    }

    @Override
    public String toString() {
        return "LockActor[" + name + "]";
    }
}
