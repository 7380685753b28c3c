package dev.zklock.recipes.locks;

import dev.zklock.recipes.test.ChaosSettings;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chaos aimed at cohort locks against a real 3-server ensemble ({@link ChaosSettings#cohortFaults}): the cohort kinds
 * beside plain locks and Curator's mutex on shared paths, while connections go silent for less than a session timeout
 * (SUSPENDED, then RECONNECTED on the same session), a stranger deletes lock nodes, clients are closed under their
 * threads and replaced, sessions expire and connections drop. Issue 18's proof is five such runs with no overlap and
 * no stuck waiter in any: run this suite five times ({@code -Dtest=CohortChaosIT}), or {@code zklock torture --faults
 * cohort} five times. Length and seed as in {@link ChaosSuite}.
 */
final class CohortChaosIT extends ChaosSuite {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.ensemble(3);

    @Override
    ZooKeeperExtension zk() {
        return zk;
    }

    @Override
    ChaosSettings settings(long seed, Duration duration) {
        return ChaosSettings.cohortFaults(seed, duration);
    }
}
