package dev.zklock.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Which scenarios a bench run measures, in order, with the targets the issue set for zklock against Curator. The
 * targets are set on the {@code ZkReentrantLock} / {@code InterProcessMutex} rows, the pair the issue names; the other
 * recipes are shown without targets.
 */
final class BenchPlan {
    private BenchPlan() {}

    /**
     * Returns the scenarios for {@code recipes}: uncontended (the raw floor beside the targeted recipe, or else the
     * first), then separate clients at each count in {@code clients}, the hand-off between two waiting clients (for
     * the targeted recipe), then threads sharing one lock object at each count in {@code threads} for the recipes whose
     * lock objects threads can share.
     */
    static List<Scenario> of(List<Recipe> recipes, List<Integer> clients, List<Integer> threads) {
        List<Scenario> scenarios = new ArrayList<>();
        boolean anyTargeted = recipes.stream().anyMatch(BenchPlan::isTargeted);
        for (Recipe recipe : recipes) {
            boolean targeted = isTargeted(recipe);
            LockScenario uncontended =
                    LockScenario.uncontended(recipe, targeted || (!anyTargeted && scenarios.isEmpty()));
            if (targeted) {
                uncontended
                        .target(LockScenario.ACQUIRE_P50, Target.ratioAtMost(0.7))
                        .target(LockScenario.VS_RAW_CREATE, Target.atMost(1.25))
                        .target(LockScenario.CYCLES_PER_SECOND, Target.ratioAtLeast(1.2));
            }
            scenarios.add(uncontended);
            for (int n : clients) {
                LockScenario scenario = LockScenario.clients(recipe, n);
                if (targeted) {
                    scenario.target(LockScenario.WATCH_EVENTS_PER_RELEASE, Target.atMost(1.0));
                    if (n == 8 || n == 32) {
                        scenario.target(LockScenario.ACQUISITIONS_PER_SECOND, Target.ratioAtLeast(1.0))
                                .target(LockScenario.REQUESTS_PER_ACQUISITION, Target.atMost(5.0));
                    }
                }
                scenarios.add(scenario);
            }
            if (targeted) {
                scenarios.add(LockScenario.handOff(recipe)
                        .target(LockScenario.HAND_OFF_P50, Target.ratioAtMost(0.8))
                        .target(LockScenario.WATCH_EVENTS_PER_RELEASE, Target.atMost(1.0)));
            }
            for (int n : recipe.sharedByThreads() ? threads : List.<Integer>of()) {
                LockScenario scenario = LockScenario.sharedLock(recipe, n);
                if (targeted && (n == 8 || n == 32)) {
                    scenario.target(LockScenario.ACQUISITIONS_PER_SECOND, Target.ratioAtLeast(2.0));
                }
                if (targeted && n == 32) {
                    scenario.target(LockScenario.REQUESTS_PER_ACQUISITION, Target.atMost(5.5));
                }
                scenarios.add(scenario);
            }
        }
        return scenarios;
    }

    private static boolean isTargeted(Recipe recipe) {
        return recipe.key().equals(Recipe.reentrant().key());
    }
}
