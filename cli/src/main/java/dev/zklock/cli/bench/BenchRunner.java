package dev.zklock.cli.bench;

import dev.zklock.cli.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the scenarios of a plan one at a time: for each, a warm-up round (not counted), then rounds in which every side
 * runs once, the order turning each round (zklock, Curator; then Curator, zklock; ...), so drift in the machine's
 * speed falls on both alike. Confined to the bench's thread.
 */
final class BenchRunner {
    private final BenchEnsemble ensemble;
    private final Duration duration;
    private final Duration warmUp;
    private final int rounds;
    private final Progress progress;

    BenchRunner(BenchEnsemble ensemble, Duration duration, Duration warmUp, int rounds, Progress progress) {
        this.ensemble = ensemble;
        this.duration = duration;
        this.warmUp = warmUp;
        this.rounds = rounds;
        this.progress = progress;
    }

    /** Returns the number of progress steps {@code scenarios} take: a warm-up and the rounds of each. */
    static int steps(List<Scenario> scenarios, int rounds) {
        return scenarios.size() * (rounds + 1);
    }

    /** Runs one scenario and returns what each side measured, summed over the rounds. */
    Map<Side, Measurement> run(Scenario scenario) throws Exception {
        scenario.prepare(ensemble);
        String name = scenario.group() + ", " + scenario.name();
        progress.running(name + ": warming up");
        scenario.round(ensemble, scenario.sides(), warmUp);
        progress.stepDone();
        Map<Side, Measurement> measured = new EnumMap<>(Side.class);
        for (int round = 0; round < rounds; round++) {
            progress.running(String.format("%s: round %d/%d", name, round + 1, rounds));
            scenario.round(ensemble, turn(scenario.sides(), round), duration)
                    .forEach((side, m) -> measured.merge(side, m, Measurement::plus));
            progress.stepDone();
        }
        return measured;
    }

    /** Returns the sides in the order of {@code round}: turned by one place each round. */
    static List<Side> turn(List<Side> sides, int round) {
        List<Side> order = new ArrayList<>(sides.size());
        for (int i = 0; i < sides.size(); i++) {
            order.add(sides.get((i + round) % sides.size()));
        }
        return order;
    }
}
