package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Protection ids: as Curator's (a 36-character version-4 UUID after {@code _c_}), never the same twice, and naming the
 * client that made a node.
 */
final class ProtectionIdsTest {
    private final ProtectionIds ids = new ProtectionIds();

    @Test
    void newPrefix_isLaidOutAsCuratorsProtectedPrefix() {
        String prefix = ids.newPrefix("lock-");

        assertThat(prefix).matches("_c_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}-lock-");
    }

    @Test
    void next_neverRepeatsAndStaysAVersion4Uuid() {
        Set<UUID> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            UUID id = ids.next();
            assertThat(id.version()).isEqualTo(4);
            assertThat(id.variant()).isEqualTo(2);
            assertThat(seen.add(id)).as("id %s seen before", id).isTrue();
        }
    }

    @Test
    void keyOf_nodeNamedByTheseIds_isTheirKey() {
        String node = ids.newPrefix("__WRIT__") + "0000000042";

        assertThat(ProtectionIds.keyOf(node)).isEqualTo(ids.key());
        assertThat(ProtectionIds.keyOf(new ProtectionIds().newPrefix("lock-") + "0000000001"))
                .isNotEqualTo(ids.key());
    }

    @Test
    void keyOf_unprotectedOrMalformedName_isNull() {
        assertThat(ProtectionIds.keyOf("lock-0000000001")).isNull();
        assertThat(ProtectionIds.keyOf("_c_short-lock-0000000001")).isNull();
        assertThat(ProtectionIds.keyOf("_c_zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz-lock-0000000001"))
                .isNull();
    }
}
