package dev.zklock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.NullNode;
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
        JsonNode read = CommandRun.json(json);
        assertThat(read.path("text").asText()).isEqualTo(value.get("text"));
        assertThat(read.path("list"))
                .containsExactly(IntNode.valueOf(1), DoubleNode.valueOf(2.5), BooleanNode.TRUE, NullNode.getInstance());
        assertThat(read.path("nested").path("empty").isArray()).isTrue();
        assertThat(read.path("nested").path("empty").isEmpty()).isTrue();
        assertThat(read.path("nested").size()).isEqualTo(1);
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
