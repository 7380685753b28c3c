package dev.zklock.recipes.test.sim;

import java.util.List;
import java.util.Map;

/**
 * What one simulation found: its plan, the invariants it saw broken (none for a clean run), the last events before the
 * end, and its size. Immutable.
 *
 * @param plan the plan that ran
 * @param violations the invariants broken, in the order seen, at most 20
 * @param trace the last events of the run, with their simulated times
 * @param steps the events run
 * @param acquires the acquires made
 * @param grants the holds granted
 * @param tallies how often the run took each of the paths that only some seeds reach (an upgrade refused, a downgrade
 *     beside a cohort's write node, a create right behind a node of its own client, which needed no listing to wait,
 *     ...), by name
 * @param explainedOverlaps conflicting holds inside at once where the earlier one's session ended, or a stranger deleted
 *     its node, after its grant: a fault no lock can prevent, what fencing tokens are for; counted, not a violation
 * @param longestExplainedOverlapMicros the longest of them, in simulated µs, from the later grant to either release
 */
public record SimReport(
        SimPlan plan,
        List<String> violations,
        String trace,
        long steps,
        long acquires,
        long grants,
        Map<String, Long> tallies,
        long explainedOverlaps,
        long longestExplainedOverlapMicros) {
    /** Tells whether no invariant was broken. */
    public boolean isClean() {
        return violations.isEmpty();
    }

    /** Describes the run for a failure: the seed to replay it, the plan, the violations and the last events. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append("seed ")
                .append(plan.seed())
                .append(" (replay: -Dzklock.sim.seed=")
                .append(plan.seed())
                .append(")\n");
        text.append("plan: ")
                .append(plan.clients())
                .append(" clients, threads ")
                .append(plan.threads())
                .append(", faults ")
                .append(plan.faults())
                .append(", delays at ")
                .append(plan.delayPercent())
                .append(" %\n");
        text.append("run it again: Simulation.run(").append(plan.toSource()).append(", SimSettings.defaults())\n");
        for (String violation : violations) {
            text.append("violation: ").append(violation).append('\n');
        }
        text.append("explained overlaps: ")
                .append(explainedOverlaps)
                .append(", the longest ")
                .append(longestExplainedOverlapMicros)
                .append(" µs\n");
        text.append("last events:\n").append(trace);
        return text.toString();
    }
}
