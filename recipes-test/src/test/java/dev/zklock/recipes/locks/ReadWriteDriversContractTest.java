package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.LockDriverContract;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The read and write drivers pass the LockDriver contract over queues that mix readers and writers. */
final class ReadWriteDriversContractTest {
    private static String mixedNode(int sequence, Random random) {
        String kind = random.nextInt(3) == 0 ? "__WRIT__" : "__READ__";
        return "_c_" + new UUID(random.nextLong(), random.nextLong()) + "-" + kind + String.format("%010d", sequence);
    }

    @Nested
    final class ReadDriverContract extends LockDriverContract {
        @Override
        protected LockDriver driver() {
            return LockDriver.read();
        }

        @Override
        protected String nodeName(int sequence, Random random) {
            return mixedNode(sequence, random);
        }

        @Test
        void decide_behindReadersAndWriters_watchesTheNearestWriter() {
            List<String> queue = List.of(
                    "_c_a-__WRIT__0000000001",
                    "_c_b-__WRIT__0000000002",
                    "_c_c-__READ__0000000003",
                    "_c_d-__READ__0000000004");

            assertThat(driver().decide(LockQueueView.of("/l", queue, "_c_d-__READ__0000000004")))
                    .isEqualTo(LockDecision.watch("_c_b-__WRIT__0000000002"));
            assertThat(driver().decide(LockQueueView.of("/l", queue.subList(2, 4), "_c_d-__READ__0000000004")))
                    .isEqualTo(LockDecision.holds());
        }
    }

    @Nested
    final class WriteDriverContract extends LockDriverContract {
        @Override
        protected LockDriver driver() {
            return LockDriver.write();
        }

        @Override
        protected String nodeName(int sequence, Random random) {
            return mixedNode(sequence, random);
        }

        @Test
        void decide_behindAWriter_watchesItAndListsAgainWhenItGoes() {
            List<String> queue =
                    List.of("_c_a-__READ__0000000001", "_c_b-__WRIT__0000000002", "_c_c-__WRIT__0000000003");

            assertThat(driver().decide(LockQueueView.of("/l", queue, "_c_c-__WRIT__0000000003")))
                    .isEqualTo(LockDecision.watchAndRelist("_c_b-__WRIT__0000000002"));
            assertThat(driver().decide(LockQueueView.of("/l", queue, "_c_b-__WRIT__0000000002")))
                    .isEqualTo(LockDecision.watch("_c_a-__READ__0000000001"));
        }
    }
}
