package dev.zklock.recipes.test.history;

import java.util.Arrays;

/**
 * A fault of the nemesis, from its {@code invoke} (start) to its {@code ok} (healed).
 *
 * <p>Immutable and thread-safe.
 *
 * @param kind the fault kind, e.g. {@code cut}, {@code pause-client}, {@code stranger-delete}
 * @param targets the free text naming the targets
 * @param start the nanos the fault started
 * @param end the nanos it healed, {@link Long#MAX_VALUE} if it never did
 */
public record FaultWindow(String kind, String targets, long start, long end) {

    /**
     * Returns whether the fault healed.
     *
     * @return whether an {@code ok} ended it
     */
    public boolean isHealed() {
        return end != Long.MAX_VALUE;
    }

    /**
     * Returns whether the fault lasted longer than {@code nanos}; one that never healed did.
     *
     * @param nanos the duration
     * @return whether {@code end - start > nanos}
     */
    public boolean lastsLongerThan(long nanos) {
        return end - start > nanos;
    }

    /**
     * Returns whether the targets name {@code clientId} as a word ({@code c2} in {@code "c2 from zk1"}, not in
     * {@code "c21"}).
     *
     * @param clientId the client id
     * @return whether the fault targets that client
     */
    public boolean names(String clientId) {
        return Arrays.asList(targets.split("[^A-Za-z0-9_]+")).contains(clientId);
    }

    /**
     * Returns whether a stranger's delete concerns {@code key}: the targets contain the key (a node under it), or name
     * no path at all (every lock).
     *
     * @param key the lock path
     * @return whether the fault may have deleted a node of {@code key}
     */
    public boolean concernsKey(String key) {
        return targets.contains(key) || !targets.contains("/");
    }

    /** Returns whether the fault's window meets {@code [from, to]}. */
    boolean meets(long from, long to) {
        return start <= to && end >= from;
    }
}
