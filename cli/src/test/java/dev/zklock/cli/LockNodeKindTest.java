package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

final class LockNodeKindTest {
    @ParameterizedTest
    @CsvSource({
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-lock-0000000007, EXCLUSIVE",
        "lock-0000000007, EXCLUSIVE",
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__READ__0000000001, READ",
        "_c_0b1e5b7e-8d3c-4e0a-9f21-3f6c2a9d4e11-__WRIT__0000000002, WRITE"
    })
    void of_lockNodeName_tellsItsKind(String node, LockNodeKind kind) {
        assertThat(LockNodeKind.of(node)).contains(kind);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"config", "lock-", "leases", "mylock-0000000001", "_c_nonsense-lock-0000000001", "0000000001"})
    void of_otherName_isNotALockNode(String node) {
        assertThat(LockNodeKind.of(node)).isEmpty();
    }
}
