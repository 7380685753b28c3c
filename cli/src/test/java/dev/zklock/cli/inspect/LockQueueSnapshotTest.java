package dev.zklock.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockNodeName;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Who holds, as the library's drivers decide it, from names alone; no ZooKeeper needed for a pure decision. */
final class LockQueueSnapshotTest {
    private static final String UUID_PREFIX = "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-";

    @Test
    void of_exclusiveNodes_firstHoldsOthersWait() {
        LockQueueSnapshot snapshot = snapshot("lock-0000000003", "lock-0000000004", "lock-0000000007");

        assertThat(holds(snapshot)).containsExactly(true, false, false);
        assertThat(snapshot.holders()).isEqualTo(1);
        assertThat(snapshot.waiters()).isEqualTo(2);
    }

    @Test
    void of_readWriteNodes_readersBeforeTheFirstWriterHold() {
        LockQueueSnapshot snapshot =
                snapshot("__READ__0000000001", "__READ__0000000002", "__WRIT__0000000003", "__READ__0000000004");

        assertThat(holds(snapshot)).containsExactly(true, true, false, false);
    }

    @Test
    void of_writerFirst_onlyTheWriterHolds() {
        LockQueueSnapshot snapshot = snapshot("__WRIT__0000000001", "__READ__0000000002", "__WRIT__0000000003");

        assertThat(holds(snapshot)).containsExactly(true, false, false);
    }

    @Test
    void of_readNodeOfADowngradingWriter_holdsBesideItsWriter() {
        // Curator's downgrade: a plain EPHEMERAL read node that carries the holding writer's sequence number.
        LockQueueSnapshot snapshot = snapshot("__WRIT__0000000005", "__READ__0000000005", "__READ__0000000006");

        assertThat(holds(snapshot)).containsExactly(true, true, false);
    }

    @Test
    void of_readNodeOfADowngradingWriterRankedFirst_holdsBesideItsWriter() {
        // Its protection id may sort before its writer's: the two share a sequence, and the tie goes by name.
        List<String> queue = LockDriver.exclusive()
                .sort(List.of(
                        "_c_ffffffff-8d3c-4e0a-9f21-3f6c2a9d4e11-__WRIT__0000000005",
                        "_c_00000000-8d3c-4e0a-9f21-3f6c2a9d4e11-__READ__0000000005",
                        UUID_PREFIX + "__WRIT__0000000006"));

        LockQueueSnapshot snapshot = exactly(queue);

        assertThat(snapshot.nodes()).extracting(LockQueueSnapshot.Node::kind).containsExactly("read", "write", "write");
        assertThat(holds(snapshot)).containsExactly(true, true, false);
    }

    @Test
    void of_readNodeLeftByADowngradeWhoseWriterReleased_isAnOrdinaryReader() {
        LockQueueSnapshot snapshot = snapshot("__READ__0000000005", "__WRIT__0000000007", "__READ__0000000008");

        assertThat(holds(snapshot)).containsExactly(true, false, false);
    }

    @Test
    void of_otherLockName_isDecidedAsAnExclusiveLock() {
        LockQueueSnapshot snapshot = snapshot("latch-0000000001", "latch-0000000002");

        assertThat(snapshot.nodes()).extracting(LockQueueSnapshot.Node::kind).containsExactly("exclusive", "exclusive");
        assertThat(holds(snapshot)).containsExactly(true, false);
    }

    @Test
    void of_nodes_numberedInQueueOrderWithTheirKinds() {
        LockQueueSnapshot snapshot = snapshot("__READ__0000000001", "__WRIT__0000000002");

        assertThat(snapshot.nodes())
                .extracting(LockQueueSnapshot.Node::position, LockQueueSnapshot.Node::kind)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, "read"),
                        org.assertj.core.groups.Tuple.tuple(2, "write"));
    }

    @Test
    void of_notALockNode_throwsNamingIt() {
        List<LockQueueSnapshot.Read> reads = List.of(new LockQueueSnapshot.Read("config", 0, 0, new byte[0]));

        assertThatThrownBy(() -> LockQueueSnapshot.of("/locks/a", reads, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'config'");
    }

    @Test
    void ofSemaphore_leaseMadeByTheMutexHolderDuringItsHoldWaits_everyOtherLeaseIsOut() {
        List<LockQueueSnapshot.Read> leases = List.of(
                new LockQueueSnapshot.Read(UUID_PREFIX + "lease-0000000001", 0x7, 1000, new byte[0], 10),
                new LockQueueSnapshot.Read(UUID_PREFIX + "lease-0000000002", 0x8, 1000, new byte[0], 11),
                new LockQueueSnapshot.Read(UUID_PREFIX + "lease-0000000003", 0x9, 1000, new byte[0], 21));
        List<LockQueueSnapshot.Read> mutex = List.of(
                new LockQueueSnapshot.Read(UUID_PREFIX + "lock-0000000005", 0x9, 1000, new byte[0], 20),
                new LockQueueSnapshot.Read(UUID_PREFIX + "lock-0000000006", 0x7, 1000, new byte[0], 22));

        LockQueueSnapshot snapshot = LockQueueSnapshot.ofSemaphore("/sem", leases, mutex, 0, 2000);

        assertThat(snapshot.isSemaphore()).isTrue();
        assertThat(holds(snapshot)).containsExactly(true, true, false, true, false);
        assertThat(snapshot.nodes())
                .extracting(LockQueueSnapshot.Node::kind)
                .containsExactly("lease", "lease", "lease", "mutex", "mutex");
        assertThat(snapshot.nodes().get(0).name()).isEqualTo("leases/" + UUID_PREFIX + "lease-0000000001");
        assertThat(snapshot.nodes().get(3).name()).isEqualTo("locks/" + UUID_PREFIX + "lock-0000000005");
        assertThat(snapshot.holders()).isEqualTo(2);
        assertThat(snapshot.waiters()).isEqualTo(2);
        assertThat(SnapshotFormat.summary(snapshot))
                .isEqualTo("semaphore, 2 leases out, 1 waiting for a lease, 1 queued for its mutex");
    }

    @Test
    void session_isHexWithPrefix() {
        LockQueueSnapshot.Node node = new LockQueueSnapshot.Node(1, name("lock-0000000001"), true, 0x1000a2bL, 0, null);

        assertThat(node.session()).isEqualTo("0x1000a2b");
    }

    private static LockQueueSnapshot snapshot(String... names) {
        List<LockQueueSnapshot.Read> reads = Arrays.stream(names)
                .map(name -> new LockQueueSnapshot.Read(UUID_PREFIX + name, 0x42, 1000, new byte[0]))
                .toList();
        return LockQueueSnapshot.of("/locks/a", reads, 0, 2000);
    }

    private static LockQueueSnapshot exactly(List<String> names) {
        List<LockQueueSnapshot.Read> reads = names.stream()
                .map(name -> new LockQueueSnapshot.Read(name, 0x42, 1000, new byte[0]))
                .toList();
        return LockQueueSnapshot.of("/locks/a", reads, 0, 2000);
    }

    private static LockNodeName name(String node) {
        return LockNodeName.parse(node).orElseThrow();
    }

    private static List<Boolean> holds(LockQueueSnapshot snapshot) {
        return snapshot.nodes().stream().map(LockQueueSnapshot.Node::holds).toList();
    }
}
