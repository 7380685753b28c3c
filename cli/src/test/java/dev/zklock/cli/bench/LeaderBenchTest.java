package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.cli.Progress;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leadership rows of the bench on an embedded server of their own, run once for the class with a tiny plan: every
 * pair's hand-overs for one short round after a shorter warm-up, and for the latches, the cut connection and the
 * {@code kill -9} as well (the faults cost about a session timeout and a JVM's start each, so the other pairs leave
 * them to the real bench). No timing is asserted: speed is for the bench to report.
 */
@Timeout(120)
final class LeaderBenchTest {
    private static final List<BenchRow> rows = new ArrayList<>();
    private static final List<LeaderScenario.Kill> kills = new ArrayList<>();

    @BeforeAll
    static void benchOnce() throws Exception {
        List<LeaderScenario> plan = new ArrayList<>();
        for (LeaderPair pair : LeaderPair.values()) {
            plan.add(LeaderScenario.of(pair, pair == LeaderPair.LATCH ? 1 : 0));
        }
        try (BenchEnsemble ensemble = BenchEnsemble.embeddedServer()) {
            Progress progress =
                    new Progress(new PrintWriter(new StringWriter()), BenchRunner.steps(List.copyOf(plan), 1));
            BenchRunner runner = new BenchRunner(ensemble, Duration.ofMillis(100), Duration.ofMillis(50), 1, progress);
            for (LeaderScenario scenario : plan) {
                Map<Side, Measurement> measured = runner.run(scenario);
                rows.addAll(scenario.rows(measured));
                kills.addAll(scenario.kills());
            }
        }
    }

    @Test
    void latch_withFaults_hasEveryRowWithAFigureForBothSides() {
        List<BenchRow> latch = rowsOf(LeaderPair.LATCH);

        assertThat(latch)
                .extracting(BenchRow::metric)
                .containsExactly(
                        LeaderScenario.HAND_OVER_P50,
                        LeaderScenario.HAND_OVER_P99,
                        LeaderScenario.SUSPENDED_AFTER_CUT,
                        LeaderScenario.REVOKED_AFTER_CUT,
                        LeaderScenario.NEXT_AFTER_KILL,
                        LeaderScenario.REQUESTS_PER_TERM);
        assertThat(latch).allSatisfy(row -> {
            assertThat(row.zklock()).as("%s", row).isPositive();
            assertThat(row.curator()).as("%s", row).isPositive();
        });
    }

    @Test
    void everyPair_handsOverAndCountsTheRequestsOfItsTerms() {
        for (LeaderPair pair : LeaderPair.values()) {
            for (BenchRow row : rowsOf(pair)) {
                boolean fault = row.metric().equals(LeaderScenario.SUSPENDED_AFTER_CUT)
                        || row.metric().equals(LeaderScenario.REVOKED_AFTER_CUT)
                        || row.metric().equals(LeaderScenario.NEXT_AFTER_KILL);
                if (!fault || pair == LeaderPair.LATCH) {
                    assertThat(row.zklock()).as("%s", row).isPositive();
                    assertThat(row.curator()).as("%s", row).isPositive();
                } else {
                    assertThat(row.zklock()).as("%s: no fault round", row).isNaN();
                }
            }
        }
    }

    @Test
    void kill_ofTheLeader_killsAnotherProcessWhoseSessionOwnedTheLeadersNode() {
        assertThat(kills).hasSize(2).allSatisfy(kill -> {
            assertThat(kill.pid()).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(kill.aliveAfter()).isFalse();
            assertThat(kill.childSession()).isNotZero();
            assertThat(kill.leaderSession()).isEqualTo(kill.childSession());
        });
    }

    private static List<BenchRow> rowsOf(LeaderPair pair) {
        return rows.stream().filter(row -> row.group().equals(pair.title())).toList();
    }
}
