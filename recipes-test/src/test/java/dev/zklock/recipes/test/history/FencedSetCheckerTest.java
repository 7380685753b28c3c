package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fenced set on hand-made histories. */
@Timeout(10)
final class FencedSetCheckerTest {
    private static final String K = "/partitions/zklock/mutex";

    private static Histories adds() {
        return history()
                .line("1 c1.t1 invoke add " + K + " a 5")
                .line("2 c1.t1 ok add " + K + " a 5")
                .line("3 c2.t1 invoke add " + K + " b 7")
                .line("4 c2.t1 ok add " + K + " b 7")
                .line("5 c1.t1 invoke add " + K + " c 5")
                .line("6 c1.t1 fail add " + K + " c 5")
                .line("7 c3.t1 invoke add " + K + " d 8")
                .line("8 c3.t1 info add " + K + " d 8");
    }

    @Test
    void check_everyAcknowledgedElementReadOnce_isValidAndCountsTheLateWrite() {
        FencedSetResult result = FencedSetChecker.check(
                        adds().line("9 c1.t1 ok read-set " + K + " a,b").build())
                .get(K);

        assertThat(result.isValid()).isTrue();
        assertThat(result.acknowledged()).isEqualTo(2);
        assertThat(result.refused()).isEqualTo(1);
        assertThat(result.unknown()).isEqualTo(1);
    }

    @Test
    void check_anAcknowledgedElementMissing_isLost() {
        FencedSetResult result = FencedSetChecker.check(
                        adds().line("9 c1.t1 ok read-set " + K + " b,d").build())
                .get(K);

        assertThat(result.isValid()).isFalse();
        assertThat(result.lost()).containsExactly("a");
    }

    @Test
    void check_anElementTwice_isDuplicated() {
        FencedSetResult result = FencedSetChecker.check(
                        adds().line("9 c1.t1 ok read-set " + K + " a,b,a").build())
                .get(K);

        assertThat(result.isValid()).isFalse();
        assertThat(result.duplicated()).containsExactly("a");
    }

    @Test
    void check_aRefusedElementStored_isInvalid() {
        FencedSetResult result = FencedSetChecker.check(
                        adds().line("9 c1.t1 ok read-set " + K + " a,b,c").build())
                .get(K);

        assertThat(result.isValid()).isFalse();
        assertThat(result.refusedButStored()).containsExactly("c");
    }

    @Test
    void check_withoutAFinalRead_isNotValid() {
        FencedSetResult result = FencedSetChecker.check(adds().build()).get(K);

        assertThat(result.hasFinalRead()).isFalse();
        assertThat(result.isValid()).isFalse();
    }

    @Test
    void check_anEmptyFinalReadOfNoAdds_isValid() {
        FencedSetResult result = FencedSetChecker.check(history()
                        .line("1 c1.t1 invoke read-set " + K + " -")
                        .line("2 c1.t1 ok read-set " + K + " -")
                        .build())
                .get(K);

        assertThat(result.isValid()).isTrue();
    }
}
