package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Mutual exclusion on hand-made histories that must pass and histories that must fail. */
@Timeout(20)
final class MutexCheckerTest {
    private static final String K = "/partitions/zklock/mutex";
    private static final MutexChecker CHECKER = MutexChecker.create(Duration.ofNanos(1_000));

    /** Holds one after the other by c0 to c4 in turn, each acquire invoked while the hold before is still held. */
    private static Histories sequentialHolds(int count) {
        Histories h = history();
        for (int i = 0; i < count; i++) {
            String process = "c" + (i % 5) + ".t1";
            long t = 10L * i + 10;
            h.line((t - 9) + " " + process + " invoke acquire " + K + " exclusive");
            h.line(t + " " + process + " ok acquire " + K + " exclusive " + i);
            h.line((t + 5) + " " + process + " invoke release " + K + " exclusive");
            h.line((t + 6) + " " + process + " ok release " + K + " exclusive");
        }
        return h;
    }

    private static CheckResult check(Histories h) {
        return CHECKER.check(h.build()).get(K);
    }

    @Test
    void check_sequentialHolds_isValidWithoutOverlaps() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 10, 20)
                .hold("c2.t1", K, "exclusive", 30, 40)
                .line("25 c3.t1 invoke acquire " + K + " exclusive")
                .line("45 c3.t1 ok acquire " + K + " exclusive 45"));

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
        assertThat(result.acquires()).isEqualTo(3);
        assertThat(result.overlaps()).isEmpty();
    }

    @Test
    void check_twoHoldersOfAMutexAtOnce_isInvalidWithBothHoldsAsWitness() {
        CheckResult result =
                check(history().hold("c1.t1", K, "exclusive", 10, 50).hold("c2.t1", K, "exclusive", 30, 60));

        assertThat(result.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
        Overlap witness = result.witness().orElseThrow();
        assertThat(witness.first().process()).isEqualTo("c1.t1");
        assertThat(witness.second().process()).isEqualTo("c2.t1");
        assertThat(witness.from()).isEqualTo(30);
        assertThat(witness.to()).isEqualTo(50);
        assertThat(result.detail()).contains("c2.t1's acquire exclusive").contains("c1.t1 exclusive");
    }

    @Test
    void check_aReaderBesideAWriter_isInvalid() {
        CheckResult result = check(history().hold("c1.t1", K, "write", 10, 50).hold("c2.t1", K, "read", 30, 40));

        assertThat(result.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(result.overlaps()).hasSize(1);
    }

    @Test
    void check_readersTogether_isValid() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "read", 10, 50)
                .hold("c2.t1", K, "read", 30, 60)
                .hold("c3.t1", K, "write", 70, 80));

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
        assertThat(result.overlaps()).isEmpty();
    }

    @Test
    void check_anInfoAcquireThatMayNotHaveHappened_isValid() {
        CheckResult result = check(history()
                .line("5 c1.t1 invoke acquire " + K + " exclusive")
                .line("8 c1.t1 info acquire " + K + " exclusive")
                .hold("c2.t1", K, "exclusive", 10, 20));

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
    }

    @Test
    void check_anInfoAcquireThatMustHaveHappenedDuringAnotherHold_isInvalid() {
        CheckResult result = check(history()
                .line("5 c1.t1 invoke acquire " + K + " exclusive")
                .line("8 c1.t1 info acquire " + K + " exclusive")
                .hold("c2.t1", K, "exclusive", 10, 100)
                .line("30 c1.t1 invoke release " + K + " exclusive")
                .line("40 c1.t1 ok release " + K + " exclusive"));

        assertThat(result.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(result.overlaps()).isEmpty();
        assertThat(result.witness()).isEmpty();
        assertThat(result.detail()).contains("fits no order");
    }

    @Test
    void check_aFailedAcquire_didNotHappen() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 10, 50)
                .line("20 c2.t1 invoke acquire " + K + " exclusive")
                .line("30 c2.t1 fail acquire " + K + " exclusive"));

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
        assertThat(result.acquires()).isEqualTo(1);
    }

    @Test
    void check_aPauseLongerThanTheSessionDuringTheOverlap_explainsIt() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .fault("pause-client", "c1", 200, 2_500)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000));

        assertThat(result.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(result.explainedOverlaps()).isEqualTo(1);
        assertThat(result.overlaps().get(0).explanation())
                .hasValueSatisfying(e -> assertThat(e).contains("c1 paused"));
    }

    @Test
    void check_aShortPauseOrAPauseOfAnotherClient_explainsNothing() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .fault("pause-client", "c1", 200, 900)
                .fault("pause-client", "c3", 200, 2_900)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000));

        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
        assertThat(result.explainedOverlaps()).isZero();
    }

    @Test
    void check_anExpiredSessionOrAHolderToldLostInTime_explainsTheOverlap() {
        String k2 = K + "2";
        Map<String, CheckResult> results = CHECKER.check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .line("1200 observer ok session - c1 expired")
                .hold("c2.t1", K, "exclusive", 1_500, 4_000)
                .hold("c3.t1", k2, "exclusive", 100, 3_000)
                .line("1400 c3.t1 ok state " + k2 + " LOST")
                .hold("c4.t1", k2, "exclusive", 1_500, 4_000)
                .build());

        assertThat(results.get(K).overlaps().get(0).explanation())
                .hasValueSatisfying(e -> assertThat(e).contains("session of c1"));
        assertThat(results.get(k2).overlaps().get(0).explanation())
                .hasValueSatisfying(e -> assertThat(e).contains("c3.t1 told LOST"));
    }

    @Test
    void check_aHolderToldOnlyAfterTheOthersGrant_isUnexplained() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000)
                .line("1600 c1.t1 ok state " + K + " IN_DOUBT"));

        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_aStrangersDeleteDuringTheHold_explainsTheOverlap() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .fault("stranger-delete", K + "/_c_1-lock-0001", 1_000, 1_001)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000));

        assertThat(result.explainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_aLongPauseWhileTheAcquireWasInFlight_explainsTheOverlapAfterIt() {
        CheckResult result = check(history()
                .line("100 c1.t1 invoke acquire " + K + " exclusive")
                .fault("pause-client", "c1 pid 7", 200, 5_000)
                .hold("c2.t1", K, "exclusive", 5_100, 6_000)
                .line("5200 c1.t1 ok acquire " + K + " exclusive 1")
                .line("5300 c1.t1 invoke release " + K + " exclusive"));

        assertThat(result.overlaps()).singleElement().satisfies(overlap -> assertThat(overlap.explanation())
                .hasValueSatisfying(why -> assertThat(why).contains("c1 paused", "while its acquire was in flight")));
    }

    @Test
    void check_aLongPauseEndedBeforeTheAcquireWasInvoked_doesNotExplainTheOverlap() {
        CheckResult result = check(history()
                .fault("pause-client", "c1 pid 7", 200, 5_000)
                .line("5050 c1.t1 invoke acquire " + K + " exclusive")
                .hold("c2.t1", K, "exclusive", 5_100, 6_000)
                .line("5200 c1.t1 ok acquire " + K + " exclusive 1")
                .line("5300 c1.t1 invoke release " + K + " exclusive"));

        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_theStrangersOwnDeleteDuringTheHold_explainsTheOverlap() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .line("1000 stranger invoke stranger-delete " + K + " " + K + "/_c_1-lock-0001")
                .line("1010 stranger ok stranger-delete " + K + " " + K + "/_c_1-lock-0001")
                .hold("c2.t1", K, "exclusive", 1_500, 4_000));

        assertThat(result.explainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_aHoldPassedBeforeTheStrangersDeleteAndReturnedAfterIt_isExplained() {
        CheckResult result = check(history()
                .hold("c3.t13", K, "exclusive", 100, 1_000)
                .line("500 c3.t14 invoke acquire " + K + " exclusive")
                .line("1010 stranger invoke stranger-delete " + K + " " + K + "/_c_3-lock-0001")
                .line("1050 stranger ok stranger-delete " + K + " " + K + "/_c_3-lock-0001")
                .hold("c2.t1", K, "exclusive", 1_060, 3_000)
                .line("1100 c3.t14 ok acquire " + K + " exclusive 1")
                .line("2000 c3.t14 invoke release " + K + " exclusive"));

        assertThat(result.overlaps()).singleElement().satisfies(overlap -> assertThat(overlap.explanation())
                .hasValueSatisfying(why -> assertThat(why).contains("stranger deleted")));
    }

    @Test
    void check_aWaiterGrantedAfterItsNodeWasDeletedWhileAnotherHeld_isNotExplained() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 2_000)
                .line("500 c2.t1 invoke acquire " + K + " exclusive")
                .line("1000 stranger invoke stranger-delete " + K + " " + K + "/_c_2-lock-0002")
                .line("1010 stranger ok stranger-delete " + K + " " + K + "/_c_2-lock-0002")
                .line("1500 c3.t1 invoke acquire " + K + " exclusive")
                .line("2100 c2.t1 ok acquire " + K + " exclusive 2")
                .line("2200 c3.t1 ok acquire " + K + " exclusive 3")
                .line("3000 c3.t1 invoke release " + K + " exclusive")
                .line("4000 c2.t1 invoke release " + K + " exclusive"));

        assertThat(result.overlaps()).singleElement().satisfies(overlap -> {
            assertThat(overlap.first().process()).isEqualTo("c2.t1");
            assertThat(overlap.isExplained()).isFalse();
        });
    }

    @Test
    void check_aReaderGrantedAfterTheDeleteBesideAWriterThatReturnedAfterIt_isExplained() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "write", 100, 1_000)
                .line("900 c3.t1 invoke acquire " + K + " write")
                .line("950 c2.t1 invoke acquire " + K + " read")
                .line("1100 stranger invoke stranger-delete " + K + " " + K + "/_c_3-write-0002")
                .line("1330 stranger ok stranger-delete " + K + " " + K + "/_c_3-write-0002")
                .line("1340 c2.t1 ok acquire " + K + " read 3")
                .line("1420 c3.t1 ok acquire " + K + " write 2")
                .line("2000 c3.t1 invoke release " + K + " write")
                .line("2500 c2.t1 invoke release " + K + " read"));

        assertThat(result.overlaps()).singleElement().satisfies(overlap -> assertThat(overlap.isExplained())
                .isTrue());
    }

    @Test
    void check_aChainOfStrangersDeletes_explainsEachOverlap() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 5_000)
                .fault("stranger-delete", K + "/_c_1-lock-0001", 1_000, 1_010)
                .hold("c2.t1", K, "exclusive", 1_100, 4_000)
                .fault("stranger-delete", K + "/_c_2-lock-0002", 2_000, 2_010)
                .hold("c3.t1", K, "exclusive", 2_100, 3_000));

        assertThat(result.overlaps()).hasSize(3).allSatisfy(overlap -> assertThat(overlap.isExplained())
                .isTrue());
    }

    @Test
    void check_aStrangersDeleteAfterBothGrants_doesNotExplainTheOverlap() {
        CheckResult result = check(history()
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000)
                .fault("stranger-delete", K + "/_c_1-lock-0001", 2_000, 2_010));

        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_aGrantAfterTheStrangersDeleteOrADeleteThatFailed_isNotExplained() {
        String other = "/partitions/zklock/other";
        CheckResult result = check(history()
                .line("10 stranger invoke stranger-delete " + K + " " + K + "/_c_1-lock-0002")
                .line("20 stranger ok stranger-delete " + K + " " + K + "/_c_1-lock-0002")
                .line("200 stranger invoke stranger-delete " + K + " " + K + "/_c_1-lock-0003")
                .line("210 stranger fail stranger-delete " + K + " " + K + "/_c_1-lock-0003")
                .line("220 stranger invoke stranger-delete " + other + " " + other + "/_c_1-lock-0004")
                .line("230 stranger ok stranger-delete " + other + " " + other + "/_c_1-lock-0004")
                .line("240 stranger fail stranger-delete - no lock node")
                .hold("c1.t1", K, "exclusive", 100, 3_000)
                .hold("c2.t1", K, "exclusive", 1_500, 4_000));

        assertThat(result.unexplainedOverlaps()).isEqualTo(1);
    }

    @Test
    void check_aSemaphore_allowsItsLeasesAndNoMore() {
        String s = "/partitions/zklock/semaphore";
        MutexChecker checker = CHECKER.withLeases(s, 2);
        Histories two = history().hold("c1.t1", s, "lease", 10, 50).hold("c2.t1", s, "lease", 20, 60);
        Histories three = history()
                .hold("c1.t1", s, "lease", 10, 50)
                .hold("c2.t1", s, "lease", 20, 60)
                .hold("c3.t1", s, "lease", 30, 40);

        assertThat(checker.check(two.build()).get(s).verdict()).isEqualTo(Verdict.VALID);
        CheckResult result = checker.check(three.build()).get(s);
        assertThat(result.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(result.overlaps()).hasSize(1);
        assertThat(result.overlaps().get(0).second().process()).isEqualTo("c3.t1");
    }

    @Test
    void check_leasesWithoutALeaseCount_throwsNamingTheKey() {
        Histories h = history().hold("c1.t1", "/s", "lease", 10, 50);

        assertThatThrownBy(() -> CHECKER.check(h.build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/s");
    }

    @Test
    void check_whenTheSearchHitsItsBound_isUnknownNotValid() {
        Histories h = history();
        for (int p = 0; p < 12; p++) {
            h.line(p + " c" + p + ".t1 invoke acquire " + K + " read");
        }
        h.hold("w.t1", K, "write", 100, 200);

        CheckResult bounded =
                CHECKER.withMaxConfigurations(100).check(h.build()).get(K);
        CheckResult full = CHECKER.check(h.build()).get(K);

        assertThat(bounded.verdict()).isEqualTo(Verdict.UNKNOWN);
        assertThat(bounded.configurations()).isEqualTo(100);
        assertThat(bounded.maxConfigurations()).isEqualTo(100);
        assertThat(full.verdict()).isEqualTo(Verdict.VALID);
        assertThat(full.configurations()).isGreaterThan(100);
    }

    @Test
    void check_tenThousandSequentialHoldsOverFiveProcesses_visitsOneConfigurationPerOperation() {
        History history = sequentialHolds(10_000).build();

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long started = threads.getCurrentThreadCpuTime();
        CheckResult result = CHECKER.check(history).get(K);
        long cpuMillis = (threads.getCurrentThreadCpuTime() - started) / 1_000_000;

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
        assertThat(result.acquires()).isEqualTo(10_000);
        assertThat(result.configurations()).isEqualTo(20_000);
        // processor time of this thread, not wall-clock time: the machine's other loads do not count, the JIT's warm-up
        // does
        assertThat(cpuMillis)
                .as("milliseconds of processor time to check 10,000 holds")
                .isLessThan(1_000);
    }

    @Test
    void check_twentyUnansweredAcquiresAmongTenThousandHolds_isValidWithinTheBound() {
        Histories h = sequentialHolds(10_000);
        Random random = new Random(20);
        for (int j = 0; j < 20; j++) {
            h.line((10L * random.nextInt(10_000) + 7) + " x" + j + ".t1 invoke acquire " + K + " exclusive");
        }

        CheckResult result = CHECKER.check(h.build()).get(K);

        assertThat(result.verdict()).isEqualTo(Verdict.VALID);
        assertThat(result.configurations()).isBetween(20_000L, 200_000L);
    }
}
