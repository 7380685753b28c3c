package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Lost updates of the unfenced counter on hand-made histories. */
@Timeout(10)
final class CounterCheckerTest {
    private static final String K = "/partitions/curator/mutex";

    private static Histories increment(Histories h, String process, long at, long read) {
        h.line(at + " " + process + " invoke counter " + K + " -");
        return h.line((at + 1) + " " + process + " ok counter " + K + " " + read + " " + (read + 1));
    }

    @Test
    void check_sequentialIncrements_loseNothing() {
        Histories h = history();
        for (int i = 0; i < 4; i++) {
            increment(h, "c" + (i % 2) + ".t1", 10L * i, i);
        }

        CounterResult fromHistory = CounterChecker.check(h.build()).get(K);
        CounterResult withFinal = CounterChecker.check(h.build(), Map.of(K, 4L)).get(K);

        assertThat(fromHistory.lostUpdates()).isZero();
        assertThat(withFinal.lostUpdates()).isZero();
        assertThat(withFinal.increments()).isEqualTo(4);
    }

    @Test
    void check_twoHoldersReadingOneValue_loseAnUpdate() {
        Histories h = history()
                .line("1 c1.t1 invoke counter " + K + " -")
                .line("2 c2.t1 invoke counter " + K + " -")
                .line("3 c1.t1 ok counter " + K + " 0 1")
                .line("4 c2.t1 ok counter " + K + " 0 1");
        increment(h, "c1.t1", 10, 1);

        CounterResult fromHistory = CounterChecker.check(h.build()).get(K);
        CounterResult withFinal = CounterChecker.check(h.build(), Map.of(K, 2L)).get(K);

        assertThat(fromHistory.repeatedWrites()).isEqualTo(1);
        assertThat(fromHistory.lostUpdates()).isEqualTo(1);
        assertThat(withFinal.finalValue()).hasValue(2);
        assertThat(withFinal.lostUpdates()).isEqualTo(1);
    }

    @Test
    void check_aBadCounterValue_throwsNamingIt() {
        Histories h = history().line("1 c1.t1 invoke counter " + K + " -").line("2 c1.t1 ok counter " + K + " 7");

        assertThatThrownBy(() -> CounterChecker.check(h.build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'7'")
                .hasMessageContaining(K);
    }
}
