package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.Cohort;
import dev.zklock.recipes.test.Chaos;
import dev.zklock.recipes.test.ChaosReport;
import dev.zklock.recipes.test.ChaosSettings;
import dev.zklock.recipes.test.Contender;
import dev.zklock.recipes.test.FaultKind;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.LockKind;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chaos run as a test: lock kinds on shared paths, cohort and cached locks among them, real faults, and a clean
 * report at the end; every kind must acquire, and every fault kind the settings weigh must have been tried (a fault
 * that could not be injected, such as a silence the client never noticed, is counted apart under "failed to inject" and
 * reported, not a failure). After the run, each cohort kind, made as the run makes it, must pass its node to a second
 * thread of its client that waits for it: what makes it a cohort, checked on a path of its own, since how often it
 * passes within the run depends on the run's mix (see {@link #assertPassesLocally}). The subclasses choose the servers, and may choose
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
        for (FaultKind kind : FaultKind.values()) {
            if (settings.faultWeights().getOrDefault(kind, 0) > 0
                    && kind.appliesTo(zk().servers().size())) {
                long tried = report.faults().getOrDefault(kind, 0L) + failedToInject(report, kind);
                assertThat(tried).as("%s tried at least once; %s", kind, replay).isPositive();
            }
        }
        for (LockKind kind : LockKind.cohorts()) {
            if (settings.kinds().contains(kind)) {
                assertPassesLocally(kind);
            }
        }
    }

    /**
     * Checks that {@code kind}, made as the run makes it, shares one lock object among the threads of a client and
     * passes its node to one that waits: the same node, the next pass. Checked after the run, on a path of its own,
     * rather than counted in the run ({@link ChaosReport#sameNodeByKind()} is a figure, not a check): in the run every
     * mutex path always has a waiter of another client behind a cohort's node, so the node passes only while its leader's
     * hold ends within the default 5 ms bound of the listing that saw that waiter and another thread of the same client
     * waits on the same path. With holds of up to 20 ms that is fewer than one release in ten (4 passes in 51
     * acquisitions of zk-cohort at seed 8461528537244659941 here), and a client's three threads share one place in the
     * queue; a slower machine made 17 acquisitions of zk-cohort at that seed and no pass, and the check failed.
     */
    private void assertPassesLocally(LockKind kind) throws Exception {
        Contender contender = kind.newContender(zk().newClient(), List.of(zk().path("passes-" + kind.name())));
        try (LockActor holder = LockActor.start(kind.name() + "-holder");
                LockActor next = LockActor.start(kind.name() + "-next")) {
            long first = holder.submit(() -> tokenOf(contender)).get(30, TimeUnit.SECONDS);
            CompletableFuture<Long> second = next.submit(() -> tokenOf(contender));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> second.isDone() || LockSupport.getBlocker(next.thread()) instanceof Cohort);
            holder.run(contender::release).get(30, TimeUnit.SECONDS);
            long token = second.get(30, TimeUnit.SECONDS);
            next.run(contender::release).get(30, TimeUnit.SECONDS);
            assertThat(FencingToken.creationZxid(token))
                    .as("%s: the second holder's node is the first's (tokens %s, %s)", kind.name(), first, token)
                    .isEqualTo(FencingToken.creationZxid(first));
        }
    }

    private static long tokenOf(Contender contender) throws Exception {
        return contender.acquire(Duration.ofSeconds(30)).orElseThrow().get(0).token();
    }

    /** The faults of {@code kind} that could not be injected: counted apart and reported, never a failure. */
    private static long failedToInject(ChaosReport report, FaultKind kind) {
        return report.failedFaults().entrySet().stream()
                .filter(entry -> entry.getKey().startsWith(kind.name() + ":"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
