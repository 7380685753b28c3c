package dev.zklock.recipes.locks;

import java.util.Optional;

/**
 * The one way an acquisition gives up on an interrupt or a failure: leave the queue, then rethrow, the interrupt as
 * {@link InterruptedException} with the flag cleared (the JDK's meaning, even after the cleanup's own waits), a
 * failure with any failure of the cleanup suppressed on it.
 */
final class GiveUp {
    /** An acquisition's body: empty when the deadline passed (it has left the queue itself then). */
    @FunctionalInterface
    interface Body<T> {
        Optional<T> run() throws InterruptedException;
    }

    private GiveUp() {}

    static <T> Optional<T> onFailure(Body<T> body, Runnable leave) throws InterruptedException {
        try {
            return body.run();
        } catch (InterruptedException e) {
            leave.run();
            Thread.interrupted();
            throw e;
        } catch (RuntimeException | Error e) {
            try {
                leave.run();
            } catch (RuntimeException cleanupFailure) {
                e.addSuppressed(cleanupFailure);
            }
            throw e;
        }
    }
}
