package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.LockDriverContract;
import java.util.List;
import org.junit.jupiter.api.Test;

final class ExclusiveDriverContractTest extends LockDriverContract {
    @Override
    protected LockDriver driver() {
        return LockDriver.exclusive();
    }

    @Test
    void decide_behindOthers_watchesTheNodeJustBefore() {
        List<String> queue = List.of("_c_a-lock-0000000001", "_c_b-lock-0000000002", "_c_c-lock-0000000003");

        assertThat(driver().decide(LockQueueView.of("/l", queue, "_c_c-lock-0000000003")))
                .isEqualTo(LockDecision.watch("_c_b-lock-0000000002"));
    }

    @Test
    void sort_mixedLockNames_ordersByTheSequenceAlone() {
        List<String> children = List.of("_c_x-lock-0000000010", "_c_y-__READ__0000000002", "_c_z-__WRIT__0000000005");

        assertThat(driver().sort(children))
                .containsExactly("_c_y-__READ__0000000002", "_c_z-__WRIT__0000000005", "_c_x-lock-0000000010");
    }
}
