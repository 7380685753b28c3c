package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Protection ids: as Curator's (a 36-character version-4 UUID after {@code _c_}), and never the same twice. */
final class ProtectionIdTest {
    @Test
    void newPrefix_isLaidOutAsCuratorsProtectedPrefix() {
        String prefix = NodeNames.newPrefix("lock-");

        assertThat(prefix).matches("_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-");
    }

    @Test
    void newProtectionId_neverRepeatsAndStaysAVersion4Uuid() {
        Set<UUID> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            UUID id = NodeNames.newProtectionId();
            assertThat(id.version()).isEqualTo(4);
            assertThat(id.variant()).isEqualTo(2);
            assertThat(seen.add(id)).as("id %s seen before", id).isTrue();
        }
    }
}
