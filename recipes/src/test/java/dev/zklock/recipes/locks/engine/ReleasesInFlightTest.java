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

        assertOverFirstAt(over, bound);
    }

    @Test
    void afterSiblingsOf_releaseEnds_overAtTheTimersNextLook() {
        ReleasesInFlight.Release release = releases.begin(RELEASED, SESSION);
        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1));
        timer.advanceTo(LOOK);
        assertThat(over).isNotDone();

        releases.end(release);

        assertOverFirstAt(over, 2 * LOOK);
    }

    @Test
    void afterSiblingsOf_releasesOfAnotherSessionOrOfTheNodeItself_doNotHoldItBack() {
        releases.begin(RELEASED, SESSION + 1);
        releases.begin(GRANTED, SESSION);

        assertThat(releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1)))
                .isDone();
        assertThat(timer.scheduled).isZero();
    }

    @Test
    void afterSiblingsOf_releaseStillInFlightAfterTheQuickLooks_overWhenItEnds() {
        ReleasesInFlight.Release release = releases.begin(RELEASED, SESSION);
        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1));

        timer.advanceTo(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(over).isNotDone();
        // The quick looks, then one task for the bound: not a look every 100 µs for as long as the release lasts.
        assertThat(timer.scheduled).isEqualTo(ReleasesInFlight.QUICK_LOOKS + 1);

        releases.end(release);
        long ended = timer.now;
        assertOverFirstAt(over, ended + LOOK);
    }

    @Test
    void afterSiblingsOf_releaseOutlastingABoundPastTheQuickLooks_endsAtTheBound() {
        releases.begin(RELEASED, SESSION);
        long bound = TimeUnit.MILLISECONDS.toNanos(300);

        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, bound);

        assertOverFirstAt(over, bound);
    }

    @Test
    void afterSiblingsOf_releasesInOtherQueues_doNotHoldItBack() {
        releases.begin("/locks/b/_c_a-lock-0000000001", SESSION);
        releases.begin("/locks/a/sub/_c_a-lock-0000000001", SESSION);
        releases.begin("/locks/_c_a-lock-0000000001", SESSION);

        assertThat(releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1)))
                .isDone();
        assertThat(timer.scheduled).isZero();
    }

    @Test
    void end_ofOneOfTwoReleasesBeside_holdsTheGrantUntilTheOtherEnds() {
        ReleasesInFlight.Release first = releases.begin(RELEASED, SESSION);
        ReleasesInFlight.Release second = releases.begin("/locks/a/_c_c-lock-0000000000", SESSION);
        CompletableFuture<Void> over = releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1));

        releases.end(first);
        timer.advanceTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(over).isNotDone();

        releases.end(second);
        timer.advanceTo(TimeUnit.MILLISECONDS.toNanos(100) + LOOK);
        assertThat(over).isDone();
        assertThat(releases.afterSiblingsOf(GRANTED, SESSION, TimeUnit.SECONDS.toNanos(1)))
                .isDone();
    }

    /** Moves the timer to just before {@code time}, where {@code over} is not done yet, then to it, where it is. */
    private void assertOverFirstAt(CompletableFuture<Void> over, long time) {
        timer.advanceTo(time - 1);
        assertThat(over).isNotDone();
        timer.advanceTo(time);
        assertThat(over).isDone();
    }
}
