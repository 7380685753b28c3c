package dev.zklock.recipes.test.partition;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/** A condition asked every 100 ms until it answers or a deadline passes. Stateless and thread-safe. */
final class Deadline {
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private Deadline() {}

    /** Returns the first answer of {@code condition} within {@code atMost} (asked at least once), or empty. */
    static <T> Optional<T> poll(Duration atMost, Supplier<Optional<T>> condition) throws InterruptedException {
        long end = System.nanoTime() + atMost.toNanos();
        for (Optional<T> answer = condition.get(); ; answer = condition.get()) {
            long left = end - System.nanoTime();
            if (answer.isPresent() || left <= 0) {
                return answer;
            }
            LockSupport.parkNanos(Math.min(PAUSE_NANOS, left));
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for a condition");
            }
        }
    }
}
