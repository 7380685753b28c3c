package dev.zklock.recipes.test.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The writer the client JVMs record through. */
@Timeout(20)
final class HistoryWriterTest {
    @TempDir
    Path dir;

    @Test
    void record_fromManyThreads_writesEveryLineWholeAndInTimeOrder() throws Exception {
        Path file = dir.resolve("c1.history");
        int threads = 4;
        int perThread = 500;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try (HistoryWriter writer = HistoryWriter.open(file)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String process = "c1.t" + t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        writer.record(process, "invoke", "add", "/k", "e" + i + " " + i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        List<HistoryEvent> events = History.parse(file.toString(), Files.readAllLines(file));
        assertThat(events).hasSize(threads * perThread);
        assertThat(events).extracting(HistoryEvent::nanos).isSorted();
    }

    @Test
    void record_aFieldWithATabOrNewline_throwsNamingTheField() {
        try (HistoryWriter writer = HistoryWriter.open(dir.resolve("h"))) {
            assertThatThrownBy(() -> writer.record("c1.t1", "ok", "read-set", "/k", "a\tb"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("field value")
                    .hasMessageContaining("a\\tb");
            assertThatThrownBy(() -> writer.record("c1.t1", "ok", "state", "/k\n", "HELD"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("field key");
            assertThatThrownBy(() -> writer.record("c1.t1", "done", "state", "/k", "HELD"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'done'");
        }
    }

    @Test
    void record_afterClose_throwsNamingTheFile() throws IOException {
        Path file = dir.resolve("closed");
        HistoryWriter writer = HistoryWriter.open(file);
        writer.record("nemesis", "invoke", "kill", "-", "zk2");
        writer.close();

        assertThatThrownBy(() -> writer.record("nemesis", "ok", "kill", "-", "zk2"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(file.toString());
        assertThat(Files.readAllLines(file)).hasSize(1);
    }

    @Test
    void open_anExistingFile_appends() throws IOException {
        Path file = dir.resolve("again");
        try (HistoryWriter writer = HistoryWriter.open(file)) {
            writer.record("c1.t1", "invoke", "counter", "/k", "-");
        }
        try (HistoryWriter writer = HistoryWriter.open(file)) {
            writer.record("c1.t1", "ok", "counter", "/k", "0 1");
        }

        assertThat(History.read(file).events()).extracting(HistoryEvent::value).containsExactly("-", "0 1");
    }
}
