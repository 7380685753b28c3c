package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A measurement in a JVM of its own: the figures it says come back by name; a child that fails says why. */
@Timeout(60)
final class BenchChildTest {
    private static final Duration LONG_ENOUGH = Duration.ofSeconds(50);

    @Test
    void run_aChildThatSaysFigures_returnsThemByNameSkippingItsOtherLines() throws Exception {
        Map<String, String> figures = BenchChild.run(Saying.class, List.of(), List.of("7", "ok"), LONG_ENOUGH);

        assertThat(figures).containsExactly(Map.entry("first", "7"), Map.entry("second", "ok"));
    }

    @Test
    void run_aChildThatFails_throwsIllegalStateWithItsStatusAndLastLines() {
        assertThatThrownBy(() -> BenchChild.run(Saying.class, List.of(), List.of("fail"), LONG_ENOUGH))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Saying (fail) ended with status 3")
                .hasMessageContaining("asked to fail");
    }

    /** The child: says its two arguments as figures between lines of its own, or fails when asked to. */
    static final class Saying {
        public static void main(String[] args) {
            System.out.println("a line of logging");
            if (args[0].equals("fail")) {
                System.err.println("asked to fail");
                System.exit(3);
            }
            BenchChild.say(System.out, "first", args[0]);
            System.out.println("another line");
            BenchChild.say(System.out, "second", args[1]);
        }
    }
}
