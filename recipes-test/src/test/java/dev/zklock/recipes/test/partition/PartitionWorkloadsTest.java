package dev.zklock.recipes.test.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import org.junit.jupiter.api.Test;

/** The workload table's own rules; no ZooKeeper needed. */
final class PartitionWorkloadsTest {
    @Test
    void maxOutsideMillis_ofTheFirstClientsOwnWorkload_isNone_soItsThreadsAlwaysPassTheNode() {
        assertThat(PartitionWorkloads.all())
                .filteredOn(PartitionWorkloads.Workload::firstClientOnly)
                .extracting(PartitionWorkloads.Workload::key, PartitionWorkloads.Workload::maxOutsideMillis)
                .containsExactly(tuple(PartitionWorkloads.ROOT + "/zklock/cohort-alone", 0));
        assertThat(PartitionWorkloads.all())
                .filteredOn(workload -> !workload.firstClientOnly())
                .extracting(PartitionWorkloads.Workload::maxOutsideMillis)
                .containsOnly(Worker.MAX_OUTSIDE_MS);
    }

    @Test
    void runsOn_aWorkloadOfTheFirstClient_runsOnC1Only() {
        PartitionWorkloads.Workload alone = PartitionWorkloads.all().stream()
                .filter(PartitionWorkloads.Workload::firstClientOnly)
                .findFirst()
                .orElseThrow();

        assertThat(alone.runsOn("c1")).isTrue();
        assertThat(alone.runsOn("c2")).isFalse();
    }
}
