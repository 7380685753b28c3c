package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Liveness bounds on hand-made histories, in milliseconds written as nanos. */
@Timeout(10)
final class LivenessCheckerTest {
    private static final String K = "/partitions/zklock/exclusive";
    private static final long MS = 1_000_000;
    private static final LivenessChecker CHECKER =
            LivenessChecker.create(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(3));

    /** A partition healed at 20 s; c1's acquire from 19 s times out at 24 s, and it tries again. */
    private static Histories healedAt20sWithAnAcquireTimingOutAt24s() {
        return history()
                .fault("partition", "zk1 | zk2 zk3", 1_000 * MS, 20_000 * MS)
                .line((19_000 * MS) + " c1.t1 invoke acquire " + K + " exclusive")
                .line((24_000 * MS) + " c1.t1 fail acquire " + K + " exclusive")
                .line((24_000 * MS) + " c1.t1 invoke acquire " + K + " exclusive");
    }

    @Test
    void check_aGrantWithinTheBoundAfterTheHeal_isLive() {
        List<LivenessViolation> violations = CHECKER.check(healedAt20sWithAnAcquireTimingOutAt24s()
                .line((26_000 * MS) + " c1.t1 ok acquire " + K + " exclusive 9")
                .line((40_000 * MS) + " c2.t1 invoke counter " + K + " -")
                .build());

        assertThat(violations).isEmpty();
    }

    @Test
    void check_aHealWithNoGrantInTheBound_isAViolation() {
        List<LivenessViolation> violations = CHECKER.check(healedAt20sWithAnAcquireTimingOutAt24s()
                .line((29_000 * MS) + " c1.t1 fail acquire " + K + " exclusive")
                .line((29_000 * MS) + " c1.t1 invoke acquire " + K + " exclusive")
                .line((33_000 * MS) + " c1.t1 ok acquire " + K + " exclusive 9")
                .build());

        assertThat(violations).hasSize(1);
        LivenessViolation violation = violations.get(0);
        assertThat(violation.what()).contains("partition healed");
        assertThat(violation.from()).isEqualTo(20_000 * MS);
        assertThat(violation.to()).isEqualTo(33_000 * MS);
        assertThat(violation.boundNanos()).isEqualTo(12_000 * MS);
    }

    @Test
    void check_anAcquireReturningPastTimeoutPlusRequestTimeout_isAViolation() {
        List<LivenessViolation> violations = CHECKER.check(history()
                .line((1_000 * MS) + " c1.t1 invoke acquire " + K + " exclusive")
                .line((9_500 * MS) + " c1.t1 fail acquire " + K + " exclusive")
                .line((10_000 * MS) + " c2.t1 invoke acquire " + K + " exclusive")
                .line((17_000 * MS) + " c2.t1 info acquire " + K + " exclusive")
                .line((20_000 * MS) + " c3.t1 invoke acquire " + K + " exclusive")
                .line((30_000 * MS) + " c2.t1 invoke counter " + K + " -")
                .build());

        assertThat(violations)
                .extracting(LivenessViolation::process, LivenessViolation::what)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("c1.t1", "acquire returned late"),
                        org.assertj.core.groups.Tuple.tuple("c3.t1", "acquire never returned"));
    }

    @Test
    void check_anAcquireOfAPausedClient_doesNotCountThePause() {
        List<LivenessViolation> violations = CHECKER.check(history()
                .line((1_000 * MS) + " c1.t1 invoke acquire " + K + " exclusive")
                .fault("pause-client", "c1", 2_000 * MS, 14_000 * MS)
                .line((15_000 * MS) + " c1.t1 fail acquire " + K + " exclusive")
                .build());

        assertThat(violations).isEmpty();
    }
}
