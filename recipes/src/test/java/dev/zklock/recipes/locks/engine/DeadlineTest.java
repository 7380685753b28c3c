package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The waits of {@link Deadline#await}, computed for given instants, and a deadline on a ticker of the test's own. */
final class DeadlineTest {
    private static final long MS = 1_000_000;

    @Test
    void waitNanos_beforeTheDeadline_waitsUntilItButAtLeastTheMinimum() {
        Deadline deadline = Deadline.after(1_000 * MS);
        long start = System.nanoTime(); // the deadline is 1,000 ms after about this instant

        assertThat(deadline.waitNanos(100 * MS, start)).isBetween(900 * MS, 1_000 * MS);
        assertThat(deadline.waitNanos(5_000 * MS, start)).isEqualTo(5_000 * MS);
    }

    @Test
    void waitNanos_afterTheDeadline_sharesOneMinimumCountedFromTheDeadline() {
        Deadline deadline = Deadline.after(0);
        long passed = System.nanoTime(); // at or after the deadline

        long first = deadline.waitNanos(2_000 * MS, passed);
        long later = deadline.waitNanos(2_000 * MS, passed + 1_500 * MS);
        long past = deadline.waitNanos(2_000 * MS, passed + 3_000 * MS);

        assertThat(first).isLessThanOrEqualTo(2_000 * MS);
        assertThat(first - later).isEqualTo(1_500 * MS); // the second wait ends where the first would have
        assertThat(past).isZero();
    }

    @Test
    void waitNanos_withNoMinimum_endsAtTheDeadline() {
        Deadline deadline = Deadline.after(0);

        assertThat(deadline.waitNanos(0, System.nanoTime())).isZero();
    }

    @Test
    void remainingNanosPlus_countsFromTheDeadline_evenOnceItPassed() {
        long[] now = {0};
        Deadline deadline = Deadline.after(100 * MS, () -> now[0]);

        assertThat(deadline.remainingNanosPlus(20 * MS)).isEqualTo(120 * MS);
        now[0] = 110 * MS;
        assertThat(deadline.remainingNanosPlus(20 * MS)).isEqualTo(10 * MS);
        now[0] = 200 * MS;
        assertThat(deadline.remainingNanosPlus(20 * MS)).isZero();
        assertThat(Deadline.forever().remainingNanosPlus(20 * MS)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void after_onATickerOfItsOwn_passesWhenThatTickerSaysSo() {
        long[] now = {7 * MS};
        Deadline deadline = Deadline.after(100 * MS, () -> now[0]);

        assertThat(deadline.remainingNanos()).isEqualTo(100 * MS);
        assertThat(deadline.hasPassed()).isFalse();
        assertThat(deadline.waitNanos(10 * MS)).isEqualTo(100 * MS);

        now[0] += 100 * MS;

        assertThat(deadline.hasPassed()).isTrue();
        assertThat(deadline.remainingNanos()).isZero();
        assertThat(deadline.plusNanos(5 * MS)).isEqualTo(112 * MS); // from the deadline, not from now
        assertThat(deadline.isForever()).isFalse();
        assertThat(Deadline.forever().isForever()).isTrue();
    }
}
