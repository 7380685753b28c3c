package dev.zklock.recipes.test.history;

/**
 * A liveness bound missed: a lock not granted in time after a fault healed, or an acquire that did not return within
 * its timeout plus one request timeout.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the lock path
 * @param process the acquiring process, or {@code nemesis} for a heal with no grant in time
 * @param what what was late, e.g. {@code "no grant after cut healed"} or {@code "acquire returned late"}
 * @param from the nanos the bound started (the heal, or the acquire's invocation)
 * @param to the nanos of the grant or the return, or of the end of the history if none came
 * @param boundNanos the bound
 */
public record LivenessViolation(String key, String process, String what, long from, long to, long boundNanos) {

    @Override
    public String toString() {
        return what + " on " + key + " by " + process + ": " + (to - from) / 1_000_000 + " ms from " + from + ", bound "
                + boundNanos / 1_000_000 + " ms";
    }
}
