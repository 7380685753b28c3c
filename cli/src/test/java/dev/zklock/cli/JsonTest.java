package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class JsonTest {
    @Test
    void write_nestedValues_readBackTheSame() {
        Map<String, Object> value = Json.object(
                "text", "quote \" backslash \\ newline \n tab \t bell \u0007",
                "list", Arrays.asList(1, 2.5, true, null),
                "nested", Json.object("empty", List.of()));

        String json = Json.write(value);

        assertThat(json).doesNotContain("\n");
        assertThat(JsonReader.object(json))
                .containsEntry("text", value.get("text"))
                .containsEntry("list", Arrays.asList(1.0, 2.5, true, null))
                .containsEntry("nested", Map.of("empty", List.of()));
    }

    @Test
    void write_wholeDouble_hasNoFraction() {
        assertThat(Json.write(List.of(3.0, 0.25))).isEqualTo("[3,0.25]");
    }

    @Test
    void write_nonFiniteNumber_throwsNamingIt() {
        assertThatThrownBy(() -> Json.write(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NaN");
    }
}
