package dev.zklock.recipes.test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounded polling for the parts of the kit that also run outside tests ({@code zklock torture} ships without
 * Awaitility): asks a question every 50 ms until it has an answer or the time is up. Stateless and thread-safe.
 */
final class Poll {
    private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private Poll() {}

    /** A question that may throw, answered with empty for "not yet". */
    @FunctionalInterface
    interface Question<T> {
        Optional<T> ask() throws Exception;
    }

    /**
     * Returns the first answer to {@code question}, or empty if none came within {@code atMost}; the question is asked
     * at least once.
     *
     * @throws InterruptedException if interrupted while waiting, or if the question throws it
     * @throws IllegalStateException if the question throws anything else, with that as the cause
     */
    static <T> Optional<T> until(Duration atMost, Question<T> question) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (true) {
            Optional<T> answer;
            try {
                answer = question.ask();
            } catch (InterruptedException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("a polled question failed", e);
            }
            if (answer.isPresent() || deadline - System.nanoTime() <= 0) {
                return answer;
            }
            LockSupport.parkNanos(Math.min(INTERVAL_NANOS, Math.max(0, deadline - System.nanoTime())));
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while polling");
            }
        }
    }
}
