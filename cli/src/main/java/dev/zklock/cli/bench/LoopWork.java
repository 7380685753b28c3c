package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The busy work each contender of a {@link LockLoop} does around its holds: {@code inside} every hold (the critical
 * section of a lock that guards work) and {@code outside}, after every release (what a thread does between its
 * holds). A busy loop on the clock, on every side alike; zero for none, and none by default: the loop then measures
 * the lock alone. Immutable; no ZooKeeper call.
 *
 * @param inside the work inside every hold
 * @param outside the work after every release, before the next acquire
 */
record LoopWork(Duration inside, Duration outside) {
    /** No work: each contender acquires again as soon as it has released. */
    static final LoopWork NONE = new LoopWork(Duration.ZERO, Duration.ZERO);

    LoopWork {
        Objects.requireNonNull(inside, "inside");
        Objects.requireNonNull(outside, "outside");
        if (inside.isNegative() || outside.isNegative()) {
            throw new IllegalArgumentException(
                    "work inside " + inside + " and outside " + outside + " must not be negative");
        }
    }

    /** {@code work} inside every hold, none outside. */
    static LoopWork inside(Duration work) {
        return new LoopWork(work, Duration.ZERO);
    }

    /** {@code work} after every release, none inside. */
    static LoopWork outside(Duration work) {
        return new LoopWork(Duration.ZERO, work);
    }

    /** How a scenario's name says it: "1 us inside", "3 us outside", both, or empty for none. */
    String label() {
        List<String> parts = new ArrayList<>(2);
        if (!inside.isZero()) {
            parts.add(inside.toNanos() / 1000 + " us inside");
        }
        if (!outside.isZero()) {
            parts.add(outside.toNanos() / 1000 + " us outside");
        }
        return String.join(", ", parts);
    }

    /** How a scenario's key says it: "-work" for work inside, "-out" for work outside, both, or empty. */
    String keyPart() {
        return (inside.isZero() ? "" : "-work") + (outside.isZero() ? "" : "-out");
    }

    /** Busy work until {@code until} on the clock. */
    static void busyUntil(long until) {
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }
}
