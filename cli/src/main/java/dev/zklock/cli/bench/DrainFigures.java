package dev.zklock.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What a side's full rounds measured beyond a {@link Measurement}: summed drains, each round's heap per waiting
 * thread, and the most platform threads (a {@link VirtualThreadDrain} each). Immutable.
 */
record DrainFigures(
        int rounds,
        long drainNanos,
        OptionalLong requestsSum,
        List<Long> heaps,
        List<Long> heapsWithoutStacks,
        long platformThreadsMax) {
    static final DrainFigures NONE = new DrainFigures(0, 0, OptionalLong.empty(), List.of(), List.of(), 0);

    DrainFigures plus(DrainFigures other) {
        return new DrainFigures(
                rounds + other.rounds,
                drainNanos + other.drainNanos,
                requestsSum.isPresent() && other.requestsSum.isPresent()
                        ? OptionalLong.of(requestsSum.getAsLong() + other.requestsSum.getAsLong())
                        : OptionalLong.empty(),
                joined(heaps, other.heaps),
                joined(heapsWithoutStacks, other.heapsWithoutStacks),
                Math.max(platformThreadsMax, other.platformThreadsMax));
    }

    private static List<Long> joined(List<Long> some, List<Long> more) {
        List<Long> both = new ArrayList<>(some);
        both.addAll(more);
        return List.copyOf(both);
    }

    double drainSeconds() {
        return rounds == 0 ? Double.NaN : drainNanos / 1e9 / rounds;
    }

    /**
     * The median of the rounds' figures (the lower middle one of an even count): the first round runs code that
     * a warm-up at a tenth of the threads left half compiled, and a frame the JIT has not compiled yet is several
     * times the size of a compiled one in a parked thread's stack.
     */
    double heapPerWaiter() {
        return Measurement.median(heaps);
    }

    /**
     * The median of the rounds' figures without the stack chunks ({@link ClassHistogram}), or NaN if no round
     * could take a class histogram.
     */
    double heapPerWaiterWithoutStacks() {
        return Measurement.median(heapsWithoutStacks);
    }

    double platformThreads() {
        return rounds == 0 ? Double.NaN : platformThreadsMax;
    }

    double requests() {
        return rounds == 0 || requestsSum.isEmpty() ? Double.NaN : requestsSum.getAsLong() / (double) rounds;
    }
}
