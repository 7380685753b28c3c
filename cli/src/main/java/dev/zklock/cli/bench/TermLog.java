package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * When each contestant of an election was last granted leadership and last revoked, by participant id, as their
 * recipes' callbacks told it ({@link System#nanoTime()} readings), and waits for the next such moment. Safe for use by
 * multiple threads: the recipes call in on their own threads.
 */
final class TermLog {
    private final Map<String, Long> grantedAt = new HashMap<>();
    private final Map<String, Long> revokedAt = new HashMap<>();
    private final Consumer<String> onGranted;

    /** A log that only records. */
    TermLog() {
        this(id -> {});
    }

    /** A log that also hands each grant's participant id to {@code onGranted}, on the recipe's thread. */
    TermLog(Consumer<String> onGranted) {
        this.onGranted = onGranted;
    }

    /** Records that {@code id} was granted leadership now. */
    void granted(String id) {
        synchronized (this) {
            grantedAt.put(id, System.nanoTime());
            notifyAll();
        }
        onGranted.accept(id);
    }

    /** Records that {@code id} was revoked now. */
    synchronized void revoked(String id) {
        revokedAt.put(id, System.nanoTime());
        notifyAll();
    }

    /**
     * Returns when {@code id} was granted at {@code since} or later, waiting up to {@code timeout} for it; -1 if it was
     * not granted in that time.
     */
    long awaitGranted(String id, long since, Duration timeout) throws InterruptedException {
        return await(grantedAt, id, since, timeout);
    }

    /**
     * Returns when {@code id} was revoked at {@code since} or later, waiting up to {@code timeout} for it; -1 if it was
     * not revoked in that time.
     */
    long awaitRevoked(String id, long since, Duration timeout) throws InterruptedException {
        return await(revokedAt, id, since, timeout);
    }

    private synchronized long await(Map<String, Long> moments, String id, long since, Duration timeout)
            throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            Long at = moments.get(id);
            if (at != null && at - since >= 0) {
                return at;
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                return -1;
            }
            wait(Math.max(1, left / 1_000_000));
        }
    }
}
