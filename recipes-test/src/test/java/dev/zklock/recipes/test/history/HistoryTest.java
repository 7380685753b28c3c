package dev.zklock.recipes.test.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.zklock.recipes.test.history.HistoryEvent.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The line format and the merge of several files. */
@Timeout(10)
final class HistoryTest {
    @TempDir
    Path dir;

    @Test
    void parse_ofAWrittenLine_givesTheEventBack() {
        HistoryEvent event = new HistoryEvent(42, "c2.t1", Type.OK, "acquire", "/p/zklock/mutex", "exclusive 17");

        assertThat(HistoryEvent.parse(event.toLine())).isEqualTo(event);
        assertThat(event.toLine()).isEqualTo("42\tc2.t1\tok\tacquire\t/p/zklock/mutex\texclusive 17");
        assertThat(event.clientId()).isEqualTo("c2");
    }

    @Test
    void read_ofTwoFiles_mergesByNanosAndKeepsFileOrderOnTies() throws IOException {
        Path first = Files.writeString(
                dir.resolve("c1"),
                "10\tc1.t1\tinvoke\tacquire\t/k\texclusive\n" + "30\tc1.t1\tok\tacquire\t/k\texclusive 1\n");
        Path second = Files.writeString(
                dir.resolve("c2"),
                "20\tc2.t1\tinvoke\tacquire\t/k\texclusive\n" + "30\tc2.t1\tfail\tacquire\t/k\texclusive\n");

        List<HistoryEvent> events = History.read(first, second).events();

        assertThat(events).extracting(HistoryEvent::nanos).containsExactly(10L, 20L, 30L, 30L);
        assertThat(events.get(2).process()).isEqualTo("c1.t1");
        assertThat(events.get(3).process()).isEqualTo("c2.t1");
    }

    @Test
    void read_ofABadLine_namesTheFileAndTheLine() throws IOException {
        Path file = Files.writeString(
                dir.resolve("c3"),
                "10\tc3.t1\tinvoke\tacquire\t/k\texclusive\n" + "11\tc3.t1\tmaybe\tacquire\t/k\texclusive\n");

        assertThatThrownBy(() -> History.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line 2")
                .hasMessageContaining("'maybe'");
    }

    @Test
    void parse_ofTooFewFieldsOrABadNumber_namesTheLine() {
        assertThatThrownBy(() -> History.parse("h", List.of("1\tc1\tok\tstate\t/k\tHELD", "x\tc1\tok\tstate\t/k")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("history h line 2")
                .hasMessageContaining("found 5");
        assertThatThrownBy(() -> History.parse("h", List.of("x1\tc1\tok\tstate\t/k\tHELD")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1")
                .hasMessageContaining("'x1'");
    }
}
