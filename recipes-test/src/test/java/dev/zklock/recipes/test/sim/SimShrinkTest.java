package dev.zklock.recipes.test.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The shrinker: a failing plan made smaller one step at a time, its delays shortened and its faults brought sooner as
 * well as its threads, acquires and faults dropped. The failures here come from a rule over the plan, not from a run,
 * so that what the shrinker finds is known in advance.
 */
final class SimShrinkTest {
    private static final SimPlan FAILING = new SimPlan(
            7L,
            2,
            List.of(
                    new SimPlan.Thread(0, SimPlan.Kind.EXCLUSIVE, 3),
                    new SimPlan.Thread(1, SimPlan.Kind.COHORT, 2),
                    new SimPlan.Thread(1, SimPlan.Kind.READ, 1)),
            List.of(
                    new SimPlan.Fault(40_000, SimPlan.FaultKind.EXPIRE, 3),
                    new SimPlan.Fault(90_000, SimPlan.FaultKind.SUSPEND, 5)));

    @Test
    void shrink_aFailureThatNeedsLongDelaysAndOneFault_keepsTheShortestDelaysThatStillFail() {
        // fails while a cohort thread runs, a suspension happens and delays are at least 12 % of the seed's
        Function<SimPlan, SimReport> runner = plan -> report(
                plan,
                plan.threads().stream().anyMatch(t -> t.kind() == SimPlan.Kind.COHORT)
                        && plan.faults().stream().anyMatch(f -> f.kind() == SimPlan.FaultKind.SUSPEND)
                        && plan.delayPercent() >= 12);

        SimReport smallest = Simulation.shrink(report(FAILING, true), runner);

        SimPlan plan = smallest.plan();
        assertThat(plan.threads()).containsExactly(new SimPlan.Thread(1, SimPlan.Kind.COHORT, 1));
        assertThat(plan.faults()).containsExactly(new SimPlan.Fault(0, SimPlan.FaultKind.SUSPEND, 5));
        assertThat(plan.delayPercent()).isEqualTo(12); // 100, 50, 25, 12: the next halving, 6, passes
        assertThat(smallest.describe())
                .contains("delays at 12 %")
                .contains("Simulation.run(" + plan.toSource() + ", SimSettings.defaults())");
    }

    @Test
    void smaller_offersHalvedDelaysAndEachFaultSooner_afterTheStructuralSteps() {
        List<SimPlan> smaller = FAILING.smaller();

        assertThat(smaller).contains(new SimPlan(7L, 2, FAILING.threads(), FAILING.faults(), 50));
        assertThat(smaller)
                .contains(new SimPlan(
                        7L,
                        2,
                        FAILING.threads(),
                        List.of(
                                new SimPlan.Fault(40_000, SimPlan.FaultKind.EXPIRE, 3),
                                new SimPlan.Fault(45_000, SimPlan.FaultKind.SUSPEND, 5)),
                        100));
        // faults dropped (2), threads dropped (3), acquires cut (2): before any timing step
        assertThat(smaller.subList(0, 7)).allMatch(p -> p.delayPercent() == 100 && p.size() < FAILING.size());
    }

    @Test
    void run_aShrunkPlanTwice_sameEvents() {
        SimPlan shorter = new SimPlan(11L, 2, FAILING.threads(), FAILING.faults(), 25);

        SimReport first = Simulation.run(shorter, SimSettings.defaults());
        SimReport again = Simulation.run(shorter, SimSettings.defaults());

        assertThat(again.trace()).isEqualTo(first.trace());
        assertThat(first.violations()).isEmpty();
    }

    @Test
    void newPlan_delayPercentOutOfRange_namesIt() {
        assertThatThrownBy(() -> new SimPlan(1L, 1, FAILING.threads(), List.of(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> new SimPlan(1L, 1, FAILING.threads(), List.of(), 101))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("101");
    }

    private static SimReport report(SimPlan plan, boolean fails) {
        return new SimReport(plan, fails ? List.of("a rule of the test") : List.of(), "", 0, 0, 0, Map.of(), 0, 0);
    }
}
