package dev.zklock.recipes.test.partition;

import java.util.Locale;

/** What a worker's hold claims, as the history spells it in the value of {@code acquire} and {@code release}. */
enum Mode {
    /** A mutex's hold. */
    EXCLUSIVE,
    /** A read lock's hold: readers share. */
    READ,
    /** A write lock's hold. */
    WRITE,
    /** One lease of a semaphore. */
    LEASE;

    /** Returns the mode as the history spells it: {@code exclusive}, {@code read}, {@code write}, {@code lease}. */
    String spelling() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Tells whether a holder is alone inside, so that it writes the unfenced counter and the fenced set. */
    boolean isAlone() {
        return this == EXCLUSIVE || this == WRITE;
    }
}
