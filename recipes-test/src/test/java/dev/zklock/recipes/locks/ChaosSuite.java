package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.Chaos;
import dev.zklock.recipes.test.ChaosReport;
import dev.zklock.recipes.test.ChaosSettings;
import dev.zklock.recipes.test.FaultKind;
import dev.zklock.recipes.test.LockKind;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos run as a test: lock kinds on shared paths, cohort and cached locks among them, real faults, and a clean
 * report at the end; every kind must acquire, every fault kind the settings weigh must have been injected, and every
 * cohort kind must have held the node of the hold before it at least once (a local pass, a cached node, local readers
 * sharing one), or the run did not exercise what makes it a cohort. The subclasses choose the servers, and may choose
 * other settings than the {@linkplain ChaosSettings#defaults default run} (every built-in kind, session and server
 * faults). {@code -Dzklock.chaos.seconds=N} sets the length (default 20 s per suite), and {@code -Dzklock.chaos.seed=S}
 * replays the scenario of a failed run, whose seed the failure message names. The class timeout allows runs of up to
 * about 20 minutes; for longer ones also pass {@code -Djunit.jupiter.execution.timeout.mode=disabled}, or use
 * {@code zklock torture}.
 */
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
abstract class ChaosSuite {
    private static final long SECONDS = Long.getLong("zklock.chaos.seconds", 20);

    /** Returns the extension of the subclass, with the servers to run against. */
    abstract ZooKeeperExtension zk();

    /** Returns what to run: the default run, unless the subclass aims at something else. */
    ChaosSettings settings(long seed, Duration duration) {
        return ChaosSettings.defaults(seed, duration);
    }

    @Test
    void run_withRealFaults_breaksNoSafetyPropertyAndEveryKindProgresses() throws Exception {
        long seed =
                Long.getLong("zklock.chaos.seed", ThreadLocalRandom.current().nextLong());
        ChaosSettings settings = settings(seed, Duration.ofSeconds(SECONDS));
        System.out.printf("[chaos] %s: seed %d, %d s%n", getClass().getSimpleName(), seed, SECONDS);

        ChaosReport report = Chaos.run(
                settings,
                zk().servers(),
                (name, connectString) -> zk().newClient(builder -> builder.connectString(connectString)
                        .ensembleTracker(false) // keeps to its proxies, if it has some
                        .defaultData(name.getBytes(StandardCharsets.UTF_8))),
                zk().basePath(),
                progress -> {});

        System.out.printf("[chaos] %s:%n%s%n", getClass().getSimpleName(), report);
        String replay = "chaos run failed; replay with -Dzklock.chaos.seed=" + seed + System.lineSeparator() + report;
        assertThat(report.safety().overlaps()).as(replay).isZero(); // violations; explained overlaps are printed
        assertThat(report.isClean()).as(replay).isTrue();
        assertThat(report.safety().tokenRegressions()).as(replay).isZero();
        assertThat(report.safety().leakedNodes()).as(replay).isZero();
        assertThat(report.safety().stuckWaiters()).as(replay).isZero();
        for (LockKind kind : settings.kinds()) {
            assertThat(report.acquisitionsByKind().getOrDefault(kind.name(), 0L))
                    .as(replay)
                    .isPositive();
        }
        for (LockKind kind : LockKind.cohorts()) { // their threads shared the lock object, and it did pass locally
            if (settings.kinds().contains(kind)) {
                assertThat(report.sameNodeByKind().getOrDefault(kind.name(), 0L))
                        .as(replay)
                        .isPositive();
            }
        }
        for (FaultKind kind : FaultKind.values()) {
            if (settings.faultWeights().getOrDefault(kind, 0) > 0
                    && kind.appliesTo(zk().servers().size())) {
                assertThat(report.faults().getOrDefault(kind, 0L))
                        .as("%s injected at least once (see 'failed to inject'); %s", kind, replay)
                        .isPositive();
            }
        }
    }
}
