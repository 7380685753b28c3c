package dev.zklock.recipes.locks.holds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** What {@link HoldCounts} says of how long a hold lasted: only a hold recorded timed reads the clock. */
final class HoldCountsTest {
    private final HoldCounts<String> counts = new HoldCounts<>("/locks/a");

    @Test
    void heldNanos_ofAHoldRecordedUntimed_isUntimed_ofOneRecordedTimed_isItsAge() throws Exception {
        counts.hold("untimed");

        assertThat(counts.heldNanos()).isEqualTo(HoldCounts.UNTIMED);
        long before = System.nanoTime();
        long other = CompletableFuture.supplyAsync(() -> {
                    counts.hold("timed", true); // a second thread's hold: kept in the map of the others
                    long held = counts.heldNanos();
                    counts.release();
                    return held;
                })
                .get();
        assertThat(other).isBetween(0L, System.nanoTime() - before);
        counts.release();
        counts.hold("timed", true);
        assertThat(counts.heldNanos()).isBetween(0L, System.nanoTime() - before);
        assertThat(counts.release()).isEqualTo("timed");
        assertThat(counts.heldNanos()).isZero(); // holds nothing
    }
}
