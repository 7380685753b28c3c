package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

final class LockDecisionTest {
    @Test
    void watch_nullNode_throwsNamingTheParameter() {
        assertThatThrownBy(() -> LockDecision.watch(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("node");
    }

    @Test
    void watch_path_throwsNamingTheValue() {
        assertThatThrownBy(() -> LockDecision.watch("/a/b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/a/b'");
    }

    @Test
    void nodeToWatch_ofHolds_throwsIllegalState() {
        assertThatThrownBy(() -> LockDecision.holds().nodeToWatch()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void equals_sameNode_isEqual() {
        assertThat(LockDecision.watch("n")).isEqualTo(LockDecision.watch("n")).isNotEqualTo(LockDecision.holds());
        assertThat(LockDecision.watch("n")).hasSameHashCodeAs(LockDecision.watch("n"));
    }

    @Test
    void of_ourNodeMissing_throwsNamingNodeAndPath() {
        assertThatThrownBy(() -> LockQueueView.of("/locks/x", List.of("a1"), "b2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'b2'")
                .hasMessageContaining("'/locks/x'");
    }
}
