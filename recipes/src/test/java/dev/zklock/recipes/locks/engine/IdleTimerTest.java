package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class IdleTimerTest {
    private final ManualTimer timer = new ManualTimer();
    private final List<String> expired = new ArrayList<>();
    private final IdleTimer<String> idle = new IdleTimer<>(timer, expired::add);

    @Test
    void keep_idleTimeEnds_tellsTheExpiryOnceAtItsEnd() {
        idle.keep("node", 1_000);

        timer.advanceTo(999);
        assertThat(expired).isEmpty();
        timer.advanceTo(1_000);
        assertThat(expired).containsExactly("node");
        timer.advanceTo(10_000);
        assertThat(expired).containsExactly("node");
        assertThat(timer.scheduled).isEqualTo(1);
    }

    @Test
    void keep_cancelledBeforeItEnds_tellsNothingAndSchedulesNoMore() {
        idle.keep("node", 1_000);
        idle.cancel();

        timer.advanceTo(10_000);

        assertThat(expired).isEmpty();
        assertThat(timer.scheduled).isEqualTo(1);
        assertThat(timer.tasks).isEmpty();
    }

    @Test
    void keepsCancelledAndKeptAgain_oneTaskPending_tellsTheExpiryAtTheLastKeepsEnd() {
        for (long now = 0; now < 500; now += 100) {
            timer.advanceTo(now);
            idle.keep("node", 1_000);
            idle.cancel();
        }
        timer.advanceTo(500);
        idle.keep("node", 1_000); // the last keep: its idle time ends at 1,500

        assertThat(timer.tasks).hasSize(1);
        timer.advanceTo(1_499);
        assertThat(expired).isEmpty();
        timer.advanceTo(1_500);
        assertThat(expired).containsExactly("node");
        assertThat(timer.scheduled).isEqualTo(2); // the first keep's task, and once more for what was left at 1,000
    }

    @Test
    void keep_anotherNodeBeforeTheFirstEnds_tellsOnlyTheLastNode() {
        idle.keep("first", 1_000);
        timer.advanceTo(200);
        idle.keep("second", 1_000);

        timer.advanceTo(1_200);

        assertThat(expired).containsExactly("second");
    }

    @Test
    void keep_timerClosed_tellsNothingAndSchedulesOnTheNextKeep() {
        timer.closed = true;
        idle.keep("node", 1_000);
        timer.closed = false;
        idle.keep("node", 1_000);

        timer.advanceTo(1_000);

        assertThat(expired).containsExactly("node");
    }
}
