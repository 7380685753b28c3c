package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The rig's settings and the nemesis's schedule: values checked, run ids and lengths drawn from the seed. */
final class RigSettingsTest {
    @Test
    void runId_sameSeed_sameShortIdWithThePrefix() {
        String runId = RigSettings.of(42, 3).runId();

        assertThat(runId)
                .matches("zkp[0-9a-f]{4}")
                .isEqualTo(RigSettings.of(42, 5).runId());
        assertThat(PartitionRig.address("c1")).isEqualTo("198.18.0.11");
        assertThat(PartitionRig.address("obs")).isEqualTo("198.18.0.100");
        assertThat(PartitionRig.address("s3")).isEqualTo("198.18.0.3");
    }

    @Test
    void new_valuesOutOfRange_throwNamingTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> RigSettings.of(1, 10))
                .withMessage("clients must be 1 to 9, not 10");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RigSettings(1, 3, Duration.ofSeconds(11)))
                .withMessage("session timeout must be 1 to 10 s, not PT11S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new NemesisSchedule(
                        Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO, List.of()))
                .withMessageContaining("fault length must be 0 <= min <= max, not PT2S..PT1S");
    }

    @Test
    void standardSchedule_faultLengthsAndGaps_stayInTheirBounds() {
        NemesisSchedule schedule = NemesisSchedule.standard();
        SplittableRandom random = new SplittableRandom(3);

        for (int i = 0; i < 1_000; i++) {
            assertThat(schedule.faultLength(random)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(10));
            assertThat(schedule.gap(random)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(3));
        }
        assertThat(schedule.kinds()).containsExactly(NemesisFault.values());
    }
}
