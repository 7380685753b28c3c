package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The wait of a grant for a release of its own client beside its node: over when the release ends, or when the bound
 * has passed on the client's clock (the timer's), never on the system's: a simulated run read the system's clock here
 * and its events changed with the load of the machine that ran it.
 */
final class ReleasesInFlightTest {
    private static final long SESSION = 7;
    private static final String RELEASED = "/locks/a/_c_a-lock-0000000001";
    private static final String GRANTED = "/locks/a/_c_b-lock-0000000002";
    private static final long LOOK = TimeUnit.MICROSECONDS.toNanos(ReleasesInFlight.HAND_OFF_DELAY_MICROS);

    private final ManualTimer timer = new ManualTimer();
    private final ReleasesInFlight releases = new ReleasesInFlight(timer);

    @Test
    void afterSiblingsOf_releaseInFlight_endsWhenTheBoundHasPassedOnTheClientsClock() {
        releases.begin(RELEASED, SESSION);
        long bound = 10 * LOOK;

        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, bound);

        timer.advanceTo(bound - 1);
        assertThat(over).isNotDone();
        timer.advanceTo(bound);
        assertThat(over).isDone();
    }

    @Test
    void afterSiblingsOf_releaseEnds_overAtTheTimersNextLook() {
        ReleasesInFlight.Release release = releases.begin(RELEASED, SESSION);
        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1));
        timer.advanceTo(LOOK);
        assertThat(over).isNotDone();

        releases.end(release);

        timer.advanceTo(2 * LOOK - 1);
        assertThat(over).isNotDone();
        timer.advanceTo(2 * LOOK);
        assertThat(over).isDone();
    }

    @Test
    void afterSiblingsOf_releasesOfAnotherSessionOrOfTheNodeItself_doNotHoldItBack() {
        releases.begin(RELEASED, SESSION + 1);
        releases.begin(GRANTED, SESSION);

        assertThat(releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1)))
                .isDone();
        assertThat(timer.scheduled).isZero();
    }
}
