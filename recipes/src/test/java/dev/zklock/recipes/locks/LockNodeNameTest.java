package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.locks.engine.NodeNames;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The node-name rules of the library as a value type: names alone, no ZooKeeper. */
final class LockNodeNameTest {
    private static final String ID = "0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11";
    private static final String PROTECTED = "_c_" + ID + "-";

    @ParameterizedTest
    @CsvSource({
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-lock-0000000007, lock-, 0000000007",
        "lock-0000000007, lock-, 0000000007",
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__READ__0000000001, __READ__, 0000000001",
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__WRIT__0000000002, __WRIT__, 0000000002",
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-latch-0000000003, latch-, 0000000003",
        "mylock-0000000001, mylock-, 0000000001",
        "lock-12345678901, lock-, 12345678901"
    })
    void parse_lockNodeName_splitsItIntoLockNameAndSequence(String node, String lockName, String sequence) {
        LockNodeName name = LockNodeName.parse(node).orElseThrow();

        assertThat(name.name()).isEqualTo(node);
        assertThat(name.lockName()).isEqualTo(lockName);
        assertThat(name.sequence()).isEqualTo(sequence);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "config",
                "lock-",
                "leases",
                "_c_nonsense-lock-0000000001",
                "0000000001",
                "",
                "v2",
                "lock-123456789",
                "_c_" + ID + "-0000000001",
                "_c_" + ID + "lock-0000000001",
                "_c_0b1e5b7e+8d3c-4e0a-9f21-3f6c2a9d4e11-lock-0000000001",
                "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e1x-lock-0000000001"
            })
    void parse_otherName_isEmpty(String node) {
        assertThat(LockNodeName.parse(node)).isEmpty();
    }

    @Test
    void parse_null_throwsNamingTheParameter() {
        assertThatThrownBy(() -> LockNodeName.parse(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("childName");
    }

    @Test
    void protectionId_ofProtectedNode_isTheUuid() {
        assertThat(parse(PROTECTED + "lock-0000000007").protectionId()).contains(ID);
    }

    @Test
    void protectionId_ofUpperCaseUuid_isTheUuidAsWritten() {
        String id = ID.toUpperCase(Locale.ROOT);

        assertThat(parse("_c_" + id + "-lock-0000000007").protectionId()).contains(id);
    }

    @Test
    void protectionId_ofUnprotectedNode_isEmpty() {
        assertThat(parse("lock-0000000007").protectionId()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "__READ__0000000001, true, false",
        "__WRIT__0000000001, false, true",
        "lock-0000000001, false, false",
        "latch-0000000001, false, false"
    })
    void isReadAndIsWrite_ofLockNode_tellTheNodesOfAReadWriteLock(String node, boolean read, boolean write) {
        LockNodeName name = parse(PROTECTED + node);

        assertThat(name.isRead()).isEqualTo(read);
        assertThat(name.isWrite()).isEqualTo(write);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lock-0000000001", "__READ__0000000002", "__WRIT__0000000003", "my__WRIT__0000000004"})
    void isWrite_ofLockNode_agreesWithTheLibrarysWriterTest(String node) {
        LockNodeName name = parse(PROTECTED + node);

        assertThat(name.isWrite()).isEqualTo(NodeNames.isWriter(name.name()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lock-0000000001", "__READ__0000000002", "__WRIT__0000000003", "lock-12345678901"})
    void sequence_ofLockNode_isTheKeyTheLibraryOrdersBy(String node) {
        LockNodeName name = parse(PROTECTED + node);

        assertThat(name.sequence()).isEqualTo(NodeNames.sequenceKey(name.name()));
    }

    @Test
    void driver_ofReadNode_isTheReadDriver() {
        assertThat(parse(PROTECTED + "__READ__0000000001").driver()).isSameAs(LockDriver.read());
    }

    @Test
    void driver_ofWriteNode_isTheWriteDriver() {
        assertThat(parse(PROTECTED + "__WRIT__0000000001").driver()).isSameAs(LockDriver.write());
    }

    @ParameterizedTest
    @ValueSource(strings = {"lock-0000000001", "latch-0000000001"})
    void driver_ofAnyOtherLockName_isTheExclusiveDriver(String node) {
        assertThat(parse(PROTECTED + node).driver()).isSameAs(LockDriver.exclusive());
    }

    @Test
    void driver_ofEachNode_decidesAReadWriteQueueAsTheLocksDo() {
        List<String> queue = LockDriver.exclusive()
                .sort(List.of("__WRIT__0000000003", "__READ__0000000001", "__READ__0000000004", "__READ__0000000002"));

        List<Boolean> holds = queue.stream()
                .map(node -> parse(node)
                        .driver()
                        .decide(LockQueueView.of("/locks/rw", queue, node))
                        .holdsLock())
                .toList();

        assertThat(queue)
                .containsExactly(
                        "__READ__0000000001", "__READ__0000000002", "__WRIT__0000000003", "__READ__0000000004");
        assertThat(holds).containsExactly(true, true, false, false);
    }

    @Test
    void isDowngradeOf_readNodeCarryingTheWritersSequence_isTrue() {
        LockNodeName writer = parse(PROTECTED + "__WRIT__0000000005");
        LockNodeName downgrade = parse("_c_9f1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__READ__0000000005");

        assertThat(downgrade.isDowngradeOf(writer)).isTrue();
    }

    @ParameterizedTest
    @CsvSource({
        "__READ__0000000006, __WRIT__0000000005",
        "__READ__0000000005, lock-0000000005",
        "__READ__0000000005, __READ__0000000005",
        "__WRIT__0000000005, __WRIT__0000000005",
        "lock-0000000005, __WRIT__0000000005"
    })
    void isDowngradeOf_otherPair_isFalse(String node, String other) {
        assertThat(parse(node).isDowngradeOf(parse(other))).isFalse();
    }

    @Test
    void isDowngradeOf_null_throwsNamingTheParameter() {
        LockNodeName name = parse("__READ__0000000005");

        assertThatThrownBy(() -> name.isDowngradeOf(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("writer");
    }

    @Test
    void equals_sameName_isEqualWithTheSameHashCode() {
        LockNodeName name = parse(PROTECTED + "lock-0000000007");
        LockNodeName same = parse(PROTECTED + "lock-0000000007");

        assertThat(name).isEqualTo(same).hasSameHashCodeAs(same).isNotEqualTo(parse("lock-0000000007"));
    }

    @Test
    void toString_namesTheNodeAndItsParts() {
        assertThat(parse(PROTECTED + "__WRIT__0000000002"))
                .hasToString("LockNodeName[" + PROTECTED + "__WRIT__0000000002: lock name '__WRIT__', sequence"
                        + " 0000000002, protection id " + ID + "]");
    }

    private static LockNodeName parse(String node) {
        return LockNodeName.parse(node).orElseThrow();
    }
}
