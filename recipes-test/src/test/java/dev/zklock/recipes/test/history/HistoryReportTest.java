package dev.zklock.recipes.test.history;

import static dev.zklock.recipes.test.history.Histories.history;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The summary over every checker, on a hand-made history and on one recorded by real workloads. */
@Timeout(30)
final class HistoryReportTest {
    private static final String ZK = "/partitions/zklock/reentrant";
    private static final String CURATOR = "/partitions/curator/mutex";
    private static final HistoryReport REPORT = HistoryReport.create(
            MutexChecker.create(Duration.ofNanos(1_000)),
            LivenessChecker.create(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(3)));

    @TempDir
    Path dir;

    @Test
    void rows_perLibraryAndKind_sumEveryChecker() {
        History h = history()
                .hold("c1.t1", ZK, "exclusive", 100, 200)
                .hold("c2.t1", ZK, "exclusive", 300, 400)
                .hold("c1.t2", CURATOR, "exclusive", 100, 3_000)
                .fault("pause-client", "c1", 150, 2_500)
                .hold("c2.t2", CURATOR, "exclusive", 1_500, 4_000)
                .line("1600 c2.t2 invoke counter " + CURATOR + " -")
                .line("1700 c2.t2 ok counter " + CURATOR + " 4 5")
                .line("2800 c1.t2 invoke counter " + CURATOR + " -")
                .line("2900 c1.t2 ok counter " + CURATOR + " 4 5")
                .line("310 c2.t1 invoke add " + ZK + " a 300")
                .line("311 c2.t1 ok add " + ZK + " a 300")
                .line("320 c1.t1 invoke add " + ZK + " b 100")
                .line("321 c1.t1 fail add " + ZK + " b 100")
                .line("5000 c1.t1 ok read-set " + ZK + " a")
                .build();

        List<ReportRow> rows = REPORT.rows(h, Map.of());
        String markdown = REPORT.render(h, Map.of());

        assertThat(rows).extracting(ReportRow::library).containsExactly("curator", "zklock");
        ReportRow curator = rows.get(0);
        assertThat(curator.kind()).isEqualTo("mutex");
        assertThat(curator.holds()).isEqualTo(2);
        assertThat(curator.invalidKeys()).isZero(); // the pause past the session explains its one overlap
        assertThat(curator.explainedInvalidKeys()).isEqualTo(1);
        assertThat(curator.explainedOverlaps()).isEqualTo(1);
        assertThat(curator.unexplainedOverlaps()).isZero();
        assertThat(curator.lostUpdates()).isEqualTo(1);
        ReportRow zklock = rows.get(1);
        assertThat(zklock.isUnsafe()).isFalse();
        assertThat(zklock.lateWritesRefused()).isEqualTo(1);
        assertThat(markdown)
                .contains("| pause-client | 1 |")
                .contains("| curator | mutex | 2 | invalid, explained (1 paths) | 0 | 1 | 1 |")
                .contains("| zklock | reentrant | 2 | valid | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 0 | 0 |");
    }

    @Test
    void group_ofAPath_isItsLastTwoSegments() {
        assertThat(HistoryReport.group(ZK)).isEqualTo("zklock\treentrant");
        assertThat(HistoryReport.group("/lock")).isEqualTo("-\tlock");
    }

    @Test
    void render_ofAHistoryRecordedByThreadsUnderARealLock_isClean() throws Exception {
        Path file = dir.resolve("c1.history");
        FileCounter counter = FileCounter.open(dir.resolve("counter"));
        FencedStore store = FencedStore.open(dir.resolve("set"));
        ReentrantLock lock = new ReentrantLock();
        long[] token = {0};
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch start = new CountDownLatch(1);
        try (HistoryWriter writer = HistoryWriter.open(file)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                String process = "c1.t" + t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 50; i++) {
                        work(writer, process, lock, counter, store, token, process + "-" + i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            writer.record("c1.t0", "invoke", "read-set", ZK, "-");
            writer.record("c1.t0", "ok", "read-set", ZK, String.join(",", store.read()));
        } finally {
            pool.shutdownNow();
        }

        History h = History.read(file);
        List<ReportRow> rows = REPORT.rows(h, Map.of(ZK, counter.read()));

        assertThat(rows).hasSize(1);
        ReportRow row = rows.get(0);
        assertThat(row.holds()).isEqualTo(150);
        assertThat(row.isUnsafe()).isFalse();
        assertThat(row.lostUpdates()).isZero();
        assertThat(row.lateWritesRefused()).isZero();
        assertThat(row.livenessViolations()).isZero();
        assertThat(counter.read()).isEqualTo(150);
    }

    private static void work(
            HistoryWriter writer,
            String process,
            ReentrantLock lock,
            FileCounter counter,
            FencedStore store,
            long[] token,
            String element) {
        writer.record(process, "invoke", "acquire", ZK, "exclusive");
        lock.lock();
        long mine = ++token[0];
        try {
            writer.record(process, "ok", "acquire", ZK, "exclusive " + mine);
            writer.record(process, "invoke", "counter", ZK, "-");
            long read = counter.read();
            counter.write(read + 1);
            writer.record(process, "ok", "counter", ZK, read + " " + (read + 1));
            writer.record(process, "invoke", "add", ZK, element + " " + mine);
            writer.record(process, store.add(element, mine) ? "ok" : "fail", "add", ZK, element + " " + mine);
            writer.record(process, "invoke", "release", ZK, "exclusive");
        } finally {
            lock.unlock();
        }
        writer.record(process, "ok", "release", ZK, "exclusive");
    }
}
