package dev.zklock.recipes.test.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The unfenced counter's single steps. */
@Timeout(10)
final class FileCounterTest {
    @TempDir
    Path dir;

    @Test
    void read_ofAMissingFile_isZero() {
        assertThat(FileCounter.open(dir.resolve("sub/counter")).read()).isZero();
    }

    @Test
    void write_thenRead_givesTheValueAndLeavesNoTemporaryFile() throws Exception {
        FileCounter counter = FileCounter.open(dir.resolve("counter"));
        counter.write(41);
        counter.write(42);

        assertThat(FileCounter.open(dir.resolve("counter")).read()).isEqualTo(42);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(dir.resolve("counter"));
        }
    }

    @Test
    void read_ofAFileWithoutALong_throwsNamingTheFile() throws Exception {
        Path file = Files.writeString(dir.resolve("counter"), "many");

        assertThatThrownBy(() -> FileCounter.open(file).read())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'many'")
                .hasMessageContaining(file.toString());
    }
}
