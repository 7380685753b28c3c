package dev.zklock.recipes.test.history;

import dev.zklock.recipes.test.history.HistoryEvent.Type;

/**
 * An operation: an invocation with its outcome, {@link Type#INFO} also for one that never completed (then
 * {@code end} is {@link Long#MAX_VALUE}: open to the end of time).
 *
 * <p>Immutable and thread-safe.
 */
record Op(String process, String f, String key, Type outcome, long start, long end, String invokeValue, String value) {

    boolean isOk() {
        return outcome == Type.OK;
    }

    boolean isFail() {
        return outcome == Type.FAIL;
    }

    boolean isInfo() {
        return outcome == Type.INFO;
    }

    String clientId() {
        return HistoryEvent.clientOf(process);
    }

    /** The first word of the invocation's value: the mode of an acquire or release. */
    String mode() {
        int space = invokeValue.indexOf(' ');
        return space < 0 ? invokeValue : invokeValue.substring(0, space);
    }
}
