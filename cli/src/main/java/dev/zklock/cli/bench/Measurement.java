package dev.zklock.cli.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What one bench run of one side measured: acquisitions in a time (how many of them shared, by readers, and how many by
 * each group of contenders, e.g. each client), acquires that timed out, the latency of each acquire and release, the
 * hand-off latency (from a holder's release to the next holder's acquisition, when the next holder is someone else),
 * and the ZooKeeper requests and watch events the servers counted over a number of acquisitions (all of the run's, or
 * those of a counting window of its own). Runs of several rounds {@linkplain #plus add up}. Not thread-safe.
 *
 * @param acquisitions acquire/release cycles completed
 * @param sharedAcquisitions of those, the cycles of a shared lock (a read lock); the others were exclusive
 * @param timeouts acquires that gave up at their timeout, not counted in {@code acquisitions}
 * @param elapsedNanos the time those cycles took: from the start of the run until the last contender finished
 * @param acquireNanos the latency of each acquire call
 * @param releaseNanos the latency of each release call
 * @param handOffNanos the latency of each hand-off to another contender
 * @param exclusiveAcquireNanos the latency of each exclusive acquire: a writer's, in a mix with readers
 * @param switchAcquireNanos the latency of each acquire that came after a holder of another group (another client):
 *     from the call to the grant
 * @param acquisitionsByGroup the acquisitions of each group of contenders, by group number; one group unless the
 *     contenders were grouped
 * @param counted the acquisitions over which requests and watch events were counted
 * @param requests requests the servers received over those, if they could be asked
 * @param watchEvents watch events the servers sent over those, if they could be asked
 * @param overlaps times two contenders held the lock at once (always 0 unless a lock is broken)
 * @param parks what the contenders' threads counted of their parks, where it was counted
 */
record Measurement(
        long acquisitions,
        long sharedAcquisitions,
        long timeouts,
        long elapsedNanos,
        Histogram acquireNanos,
        Histogram releaseNanos,
        Histogram handOffNanos,
        Histogram exclusiveAcquireNanos,
        Histogram switchAcquireNanos,
        List<Long> acquisitionsByGroup,
        long counted,
        OptionalLong requests,
        OptionalLong watchEvents,
        long overlaps,
        ParkCounts parks) {

    /** The longest latency a histogram tracks; longer ones are recorded as this. */
    static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Returns an empty histogram for latencies in nanoseconds, with three significant digits. */
    static Histogram histogram() {
        return new Histogram(MAX_NANOS, 3);
    }

    /**
     * Returns a run that counted only its acquisitions and their time: no latency recorded, no request counted, one
     * group. For the rows whose figures a scenario keeps apart (a child JVM's heap, its pinned threads).
     */
    static Measurement counted(long acquisitions, long elapsedNanos) {
        return new Measurement(
                acquisitions,
                0,
                0,
                elapsedNanos,
                histogram(),
                histogram(),
                histogram(),
                histogram(),
                histogram(),
                List.of(acquisitions),
                0,
                OptionalLong.empty(),
                OptionalLong.empty(),
                0,
                ParkCounts.NONE);
    }

    /**
     * Returns the median of {@code figures}, the lower middle one of an even count, or NaN if there is none: how the
     * rows that keep a figure per round (a heap) sum their rounds up.
     */
    static double median(List<? extends Number> figures) {
        if (figures.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>();
        figures.forEach(figure -> sorted.add(figure.doubleValue()));
        Collections.sort(sorted);
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** Returns this run and {@code other} as one: counts and times added, histograms merged. */
    Measurement plus(Measurement other) {
        return new Measurement(
                acquisitions + other.acquisitions,
                sharedAcquisitions + other.sharedAcquisitions,
                timeouts + other.timeouts,
                elapsedNanos + other.elapsedNanos,
                merged(acquireNanos, other.acquireNanos),
                merged(releaseNanos, other.releaseNanos),
                merged(handOffNanos, other.handOffNanos),
                merged(exclusiveAcquireNanos, other.exclusiveAcquireNanos),
                merged(switchAcquireNanos, other.switchAcquireNanos),
                sum(acquisitionsByGroup, other.acquisitionsByGroup),
                counted + other.counted,
                sum(requests, other.requests),
                sum(watchEvents, other.watchEvents),
                overlaps + other.overlaps,
                parks.plus(other.parks));
    }

    /** Returns acquisitions per second. */
    double perSecond() {
        return perSecond(acquisitions);
    }

    /** Returns shared acquisitions (by readers) per second. */
    double sharedPerSecond() {
        return perSecond(sharedAcquisitions);
    }

    /** Returns exclusive acquisitions (by writers, or by the holders of an exclusive lock) per second. */
    double exclusivePerSecond() {
        return perSecond(acquisitions - sharedAcquisitions);
    }

    /**
     * Returns the acquisitions of {@code group} in percent of all acquisitions, or NaN if there was none or the group
     * did not run.
     */
    double sharePercent(int group) {
        if (acquisitions == 0 || group >= acquisitionsByGroup.size()) {
            return Double.NaN;
        }
        return acquisitionsByGroup.get(group) * 100.0 / acquisitions;
    }

    /** Returns the acquires that timed out, in percent of all acquires, or NaN if there was none. */
    double timedOutPercent() {
        long attempts = acquisitions + timeouts;
        return attempts == 0 ? Double.NaN : timeouts * 100.0 / attempts;
    }

    /** Returns a percentile of the acquire latency in milliseconds, or NaN if nothing was recorded. */
    double acquireMillis(double percentile) {
        return millis(acquireNanos, percentile);
    }

    /** Returns a percentile of the release latency in milliseconds, or NaN if nothing was recorded. */
    double releaseMillis(double percentile) {
        return millis(releaseNanos, percentile);
    }

    /** Returns a percentile of the hand-off latency in milliseconds, or NaN if there was no hand-off. */
    double handOffMillis(double percentile) {
        return millis(handOffNanos, percentile);
    }

    /** Returns a percentile of the latency of exclusive acquires in milliseconds, or NaN if there was none. */
    double exclusiveAcquireMillis(double percentile) {
        return millis(exclusiveAcquireNanos, percentile);
    }

    /**
     * Returns a percentile of the latency of the acquires that came after a holder of another group, in milliseconds,
     * or NaN if there was none.
     */
    double switchAcquireMillis(double percentile) {
        return millis(switchAcquireNanos, percentile);
    }

    /** Returns requests per acquisition, or NaN if the server could not be asked. */
    double requestsPerAcquisition() {
        return requests.isPresent() && counted > 0 ? requests.getAsLong() / (double) counted : Double.NaN;
    }

    /** Returns watch events per acquisition (each acquisition ends in one release), or NaN if not counted. */
    double watchEventsPerRelease() {
        return watchEvents.isPresent() && counted > 0 ? watchEvents.getAsLong() / (double) counted : Double.NaN;
    }

    /**
     * Returns the contenders' context switches per acquisition, or NaN if they were not counted: about one where every
     * acquisition parks its thread until the lock is passed to it, fewer where threads take a free lock on their way.
     */
    double threadSwitchesPerAcquisition() {
        return parks.threadSwitches().isPresent() && acquisitions > 0
                ? parks.threadSwitches().getAsLong() / (double) acquisitions
                : Double.NaN;
    }

    /** Returns the share of acquires that found the lock free and nobody queued, in percent, or NaN if not counted. */
    double foundFreePercent() {
        return parks.foundFree().isPresent() && acquisitions + timeouts > 0
                ? 100.0 * parks.foundFree().getAsLong() / (acquisitions + timeouts)
                : Double.NaN;
    }

    private double perSecond(long count) {
        return elapsedNanos == 0 ? Double.NaN : count * 1e9 / elapsedNanos;
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1e6;
    }

    private static Histogram merged(Histogram a, Histogram b) {
        Histogram sum = a.copy();
        sum.add(b);
        return sum;
    }

    private static List<Long> sum(List<Long> a, List<Long> b) {
        List<Long> sum = new ArrayList<>();
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            sum.add((i < a.size() ? a.get(i) : 0) + (i < b.size() ? b.get(i) : 0));
        }
        return List.copyOf(sum);
    }

    /** Returns {@code a} and {@code b} added, or empty unless both are there. */
    static OptionalLong sum(OptionalLong a, OptionalLong b) {
        return a.isPresent() && b.isPresent() ? OptionalLong.of(a.getAsLong() + b.getAsLong()) : OptionalLong.empty();
    }
}
