package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hold-state honesty on hand-made histories. */
@Timeout(10)
final class HoldStateCheckerTest {
    private static final String K = "/partitions/zklock/reentrant";

    @Test
    void check_aHolderToldInDoubtBeforeExpiryAndTheNextGrant_isHonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 5_000)
                        .fault("cut", "c1 from zk1 zk2 zk3", 1_000, 4_000)
                        .line("1500 c1.t1 ok state " + K + " IN_DOUBT")
                        .line("2000 observer ok session - c1 expired")
                        .line("2500 c1.t1 ok state " + K + " LOST")
                        .hold("c2.t1", K, "exclusive", 3_000, 6_000)
                        .build())
                .get(K);

        assertThat(result.dishonest()).isEmpty();
        assertThat(result.maxHeldAfterExpiryNanos()).isZero();
        assertThat(result.holds()).isEqualTo(2);
    }

    @Test
    void check_aHeldClaimPastExpiry_measuresItAndCountsTheHold() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 5_000)
                        .line("2000 observer ok session - c1 expired")
                        .line("2700 c1.t1 ok state " + K + " LOST")
                        .build())
                .get(K);

        assertThat(result.dishonest()).hasSize(1);
        assertThat(result.maxHeldAfterExpiryNanos()).isEqualTo(700);
    }

    @Test
    void check_aHeldClaimPastExpiryDuringAPause_countsFromTheHoldersFirstLineAfterThePause() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 5_000)
                        .fault("pause-client", "c1", 1_000, 2_500)
                        .line("2000 observer ok session - c1 expired")
                        .line("2450 c1.t1 invoke add " + K + " c1-1 7")
                        .line("2700 c1.t1 ok state " + K + " LOST")
                        .build())
                .get(K);

        assertThat(result.maxHeldAfterExpiryNanos()).isEqualTo(250);
    }

    @Test
    void check_aHolderWhoseFirstWordAfterAPauseIsInDoubt_isHonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 5_000)
                        .fault("pause-client", "c1", 1_000, 2_500)
                        .line("2000 observer ok session - c1 expired")
                        .line("2600 c1.t1 ok state " + K + " IN_DOUBT")
                        .line("2900 c1.t1 ok state " + K + " LOST")
                        .build())
                .get(K);

        assertThat(result.dishonest()).isEmpty();
        assertThat(result.maxHeldAfterExpiryNanos()).isZero();
    }

    @Test
    void check_anotherGrantAfterACutWhileTheHolderSaysHeld_isDishonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 5_000)
                        .fault("cut-one-way", "c1", 1_000, 4_000)
                        .hold("c2.t1", K, "exclusive", 3_000, 6_000)
                        .line("3500 c1.t1 ok state " + K + " IN_DOUBT")
                        .build())
                .get(K);

        assertThat(result.dishonest()).hasSize(1);
        DishonestHold dishonest = result.dishonest().get(0);
        assertThat(dishonest.hold().process()).isEqualTo("c1.t1");
        assertThat(dishonest.grantedWhileHeld())
                .hasValueSatisfying(h -> assertThat(h.process()).isEqualTo("c2.t1"));
        assertThat(dishonest.heldAfterExpiryNanos()).isZero();
    }

    @Test
    void check_aLateSightingOfAnEarlierSessionsEnd_isNotTakenForTheEndOfTheHoldsSession() {
        Histories h = history()
                .line("10 c1.t0 invoke session - c1 1a2b")
                .line("500 c1.t0 invoke session - c1 3c4d")
                .hold("c1.t1", K, "exclusive", 600, 5_000)
                .line("1000 observer ok session - c1 expired");

        HoldStateResult honest = HoldStateChecker.check(h.build()).get(K);
        HoldStateResult dishonest = HoldStateChecker.check(
                        h.line("2000 observer ok session - c1 expired").build())
                .get(K);

        assertThat(honest.dishonest()).isEmpty();
        assertThat(dishonest.maxHeldAfterExpiryNanos()).isEqualTo(3_000);
    }

    @Test
    void check_sessionsNamedByTheHolderAndTheObserver_matchByIdWhateverTheClientRecordedInOrder() {
        // The client recorded only its first session (its presence thread missed the second), so by order the
        // late sighting of 1a2b's end would be taken for the end of the hold's session.
        Histories h = history()
                .line("10 c1.t0 invoke session - c1 1a2b")
                .line("599 c1.t1 info session " + K + " 3c4d")
                .hold("c1.t1", K, "exclusive", 600, 5_000)
                .line("1000 observer ok session - c1 1a2b expired");

        HoldStateResult honest = HoldStateChecker.check(h.build()).get(K);
        HoldStateResult dishonest = HoldStateChecker.check(
                        h.line("2000 observer ok session - c1 3c4d expired").build())
                .get(K);

        assertThat(honest.dishonest()).isEmpty();
        assertThat(dishonest.maxHeldAfterExpiryNanos()).isEqualTo(3_000);
    }

    @Test
    void check_aLocalPassDecidedWhileTheClientWasSuspended_isDishonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .hold("c1.t1", K, "exclusive", 100, 1_500)
                        .line("1000 c1 info connection - SUSPENDED")
                        .line("900 c1.t2 invoke acquire " + K + " exclusive") // waits in the local queue
                        .line("1600 c1.t2 ok acquire " + K + " exclusive 1600") // passed on c1.t1's release
                        .line("3000 c1 info connection - RECONNECTED")
                        .build())
                .get(K);

        assertThat(result.dishonest())
                .singleElement()
                .satisfies(d -> assertThat(d.hold().process()).isEqualTo("c1.t2"))
                .satisfies(d -> assertThat(d.grantedWhileSuspended()).isTrue());
    }

    @Test
    void check_anAcquireInvokedDuringASuspensionAndGrantedInIt_isDishonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .line("1000 c1 info connection - SUSPENDED")
                        .hold("c1.t1", K, "exclusive", 1_200, 1_500)
                        .line("3000 c1 info connection - LOST")
                        .build())
                .get(K);

        assertThat(result.dishonest()).singleElement().satisfies(d -> assertThat(d.grantedWhileSuspended())
                .isTrue());
    }

    @Test
    void check_grantsDecidedBeforeASuspensionOrAfterItsEnd_areHonest() {
        HoldStateResult result = HoldStateChecker.check(history()
                        .line("1000 c1 info connection - SUSPENDED")
                        .hold("c1.t1", K, "exclusive", 1_001, 1_500) // invoked at 1000, decided before the line
                        .line("1600 c1.t2 invoke acquire " + K + " exclusive")
                        .line("3000 c1 info connection - RECONNECTED")
                        .line("3100 c1.t2 ok acquire " + K + " exclusive 3100")
                        .line("3200 c1.t2 invoke release " + K + " exclusive")
                        .build())
                .get(K);

        assertThat(result.dishonest()).isEmpty();
    }
}
