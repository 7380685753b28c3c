package dev.zklock.recipes.test.history;

import dev.zklock.recipes.test.history.HistoryEvent.Type;

/**
 * An operation: an invocation with its outcome, {@link Type#INFO} also for one that never completed. {@code end} is
 * when it took effect at the latest: its outcome's time, {@link Long#MAX_VALUE} for an {@code info} (it may take
 * effect at any time). {@code returned} is when the caller got an answer, {@link Long#MAX_VALUE} if never.
 *
 * <p>Immutable and thread-safe.
 */
record Op(
        String process,
        String f,
        String key,
        Type outcome,
        long start,
        long end,
        long returned,
        String invokeValue,
        String value) {

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

    /** The first word of the invocation's value: the element of an add. */
    String element() {
        return mode();
    }

    /** The first word of the invocation's value: the mode of an acquire or release. */
    String mode() {
        int space = invokeValue.indexOf(' ');
        return space < 0 ? invokeValue : invokeValue.substring(0, space);
    }
}
