package dev.zklock.cli.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Two clients looping over multi-locks on the same two paths given in opposite orders, [A, B] and [B, A], each acquire
 * with a timeout, nothing done while holding. Curator's {@code InterProcessMultiLock} takes its locks one by one in the
 * order given, so each client can hold its first path and wait for the other's until a timeout breaks the deadlock;
 * {@code ZkMultiLock} enters both queues in one transaction, in one order for everyone, and cannot deadlock. Counts the
 * acquires that timed out.
 */
final class CrossedMultiLockScenario implements Scenario {
    /** How long an acquire may wait: far longer than a hand-off between two clients takes, even on a busy machine. */
    static final Duration TIMEOUT = Duration.ofMillis(250);

    static final String TIMED_OUT = "timed-out acquires (%)";

    private final Recipe forward = Recipe.multi(2);
    private final Recipe reverse = Recipe.multiInReverse(2);
    private final Targets targets = new Targets();

    /** Sets the target of the row named {@code metric}; returns this scenario. */
    CrossedMultiLockScenario target(String metric, Target target) {
        targets.set(metric, target);
        return this;
    }

    @Override
    public String group() {
        return forward.title();
    }

    @Override
    public String name() {
        return "2 clients, 2 paths in opposite orders, timeout " + TIMEOUT.toMillis() + " ms";
    }

    @Override
    public String key() {
        return "multi-crossed-2";
    }

    @Override
    public int contenders() {
        return 2;
    }

    @Override
    public void prepare(BenchEnsemble ensemble) throws Exception {
        for (Side side : sides()) {
            ensemble.makePaths(forward.lockPaths(path(ensemble, side)));
        }
        ensemble.client(1);
    }

    @Override
    public Map<Side, Measurement> round(BenchEnsemble ensemble, List<Side> order, Duration duration) throws Exception {
        return LockLoop.eachSide(
                order,
                side -> List.of(
                        Contender.exclusive(forward.make(side, ensemble.client(0), path(ensemble, side)), TIMEOUT),
                        Contender.exclusive(reverse.make(side, ensemble.client(1), path(ensemble, side)), TIMEOUT)),
                duration,
                Duration.ZERO,
                ensemble);
    }

    @Override
    public List<BenchRow> rows(Map<Side, Measurement> measured) {
        return List.of(
                targets.row(this, measured, LockScenario.ACQUISITIONS_PER_SECOND, Measurement::perSecond),
                targets.row(this, measured, TIMED_OUT, Measurement::timedOutPercent),
                targets.row(this, measured, LockScenario.REQUESTS_PER_ACQUISITION, Measurement::requestsPerAcquisition),
                targets.row(this, measured, LockScenario.WATCH_EVENTS_PER_RELEASE, Measurement::watchEventsPerRelease));
    }
}
