package dev.zklock.cli.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryWriter;
import dev.zklock.recipes.test.history.MutexChecker;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link PartitionTimeline} and its {@link TimelineModel} on hand-made histories: lanes, bars, overlaps, the PNG. */
@Timeout(60)
final class PartitionTimelineTest {
    private static final MutexChecker CHECKER = MutexChecker.create(Duration.ofSeconds(4));

    @TempDir
    Path dir;

    @Test
    void model_cleanRun_oneLanePerPathByLibraryWithEveryHoldAndFault() {
        TimelineModel model = PartitionTimeline.model(RunHistories.clean(dir), CHECKER);

        assertThat(model.lanes()).containsExactly("curator/mutex", "zklock/reentrant");
        assertThat(model.rows()).containsExactly(List.of("c2.t2"), List.of("c1.t1", "c2.t1"));
        assertThat(model.clients()).containsExactly("c1", "c2");
        assertThat(model.bars())
                .extracting(TimelineModel.Bar::lane, TimelineModel.Bar::row, TimelineModel.Bar::client)
                .containsExactly(tuple(1, 0, "c1"), tuple(1, 1, "c2"), tuple(0, 0, "c2"));
        assertThat(model.bars()).noneMatch(TimelineModel.Bar::overlapped);
        assertThat(model.marks()).isEmpty();
        assertThat(model.faults()).extracting(TimelineModel.Fault::kind).containsExactly("cut");
        TimelineModel.Fault cut = model.faults().get(0);
        assertThat(cut.from())
                .isGreaterThan(model.bars().get(0).to())
                .isLessThan(model.bars().get(1).from());
        assertThat(model.seconds()).isGreaterThanOrEqualTo(model.bars().get(2).to());
    }

    @Test
    void model_overlap_marksItOnItsLaneAndBothBars() {
        TimelineModel model = PartitionTimeline.model(RunHistories.overlapping(dir), CHECKER);

        assertThat(model.marks()).hasSize(1);
        TimelineModel.Mark mark = model.marks().get(0);
        assertThat(model.lanes().get(mark.lane())).isEqualTo("zklock/reentrant");
        assertThat(mark.explained()).isFalse();
        List<TimelineModel.Bar> zklock =
                model.bars().stream().filter(b -> b.lane() == mark.lane()).toList();
        assertThat(zklock).hasSize(2).allMatch(TimelineModel.Bar::overlapped);
        assertThat(mark.from()).isEqualTo(zklock.get(1).from());
        assertThat(mark.to()).isEqualTo(zklock.get(0).to());
        assertThat(model.bars().stream().filter(b -> b.lane() != mark.lane())).noneMatch(TimelineModel.Bar::overlapped);
    }

    @Test
    void model_overlapDuringAPauseLongerThanTheSession_marksItExplained() {
        TimelineModel model = PartitionTimeline.model(
                RunHistories.overlapping(dir, "pause-client"), MutexChecker.create(Duration.ofNanos(1)));

        assertThat(model.marks())
                .singleElement()
                .extracting(TimelineModel.Mark::explained)
                .isEqualTo(true);
        assertThat(model.faults()).extracting(TimelineModel.Fault::kind).containsExactly("pause-client");
    }

    @Test
    void merge_barsOfOneRowCloserThanTheGap_becomeOneBarThatKeepsTheOverlap() {
        List<TimelineModel.Bar> bars = List.of(
                new TimelineModel.Bar(0, 0, "c1", 0.0, 1.0, false),
                new TimelineModel.Bar(0, 1, "c2", 1.02, 2.0, false),
                new TimelineModel.Bar(0, 0, "c1", 1.05, 2.0, true),
                new TimelineModel.Bar(0, 0, "c1", 3.0, 4.0, false));

        List<TimelineModel.Bar> merged = TimelineModel.merge(bars, 0.1);

        assertThat(merged)
                .containsExactly(
                        new TimelineModel.Bar(0, 0, "c1", 0.0, 2.0, true),
                        new TimelineModel.Bar(0, 1, "c2", 1.02, 2.0, false),
                        new TimelineModel.Bar(0, 0, "c1", 3.0, 4.0, false));
    }

    @Test
    void draw_cleanRun_writesAPngOfTheExpectedSizeWithNoRed() throws Exception {
        Path png = dir.resolve("timeline.png");

        PartitionTimeline.draw(RunHistories.clean(dir), CHECKER, "clean run", png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(PartitionTimeline.WIDTH);
        assertThat(image.getHeight()).isEqualTo(PartitionTimeline.height(2));
        assertThat(Files.size(png)).isLessThan(1_000_000);
        assertThat(redPixels(image)).isZero();
    }

    @Test
    void draw_overlap_shadesItRed() throws Exception {
        Path png = dir.resolve("timeline.png");

        PartitionTimeline.draw(RunHistories.overlapping(dir), CHECKER, "overlap", png);

        assertThat(redPixels(ImageIO.read(png.toFile()))).isGreaterThan(100);
    }

    @Test
    void draw_thousandsOfHolds_staysUnderAMegabyte() throws Exception {
        Path file = dir.resolve("long.history");
        try (HistoryWriter w = HistoryWriter.open(file)) {
            for (int i = 0; i < 3_000; i++) {
                String process = "c" + (1 + i % 5) + ".t1";
                String key = "/partitions/" + (i % 2 == 0 ? "zklock" : "curator") + "/k" + (i % 6);
                w.record(process, "invoke", "acquire", key, "exclusive");
                w.record(process, "ok", "acquire", key, "exclusive " + i);
                w.record(process, "invoke", "release", key, "exclusive");
                w.record(process, "ok", "release", key, "exclusive");
            }
        }
        Path png = dir.resolve("long.png");

        PartitionTimeline.draw(History.read(file), CHECKER, "3,000 holds", png);

        assertThat(ImageIO.read(png.toFile()).getHeight()).isEqualTo(PartitionTimeline.height(6));
        assertThat(Files.size(png)).isLessThan(1_000_000);
    }

    @Test
    void draw_noHold_throwsNamingTheFile() {
        Path png = dir.resolve("empty.png");

        assertThatThrownBy(() -> PartitionTimeline.draw(History.of(List.of()), CHECKER, "empty", png))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(png.toString());
        assertThat(png).doesNotExist();
    }

    /** Pixels of the overlap's red: strong red, little green or blue (no client's or fault's colour is). */
    private static long redPixels(BufferedImage image) {
        long red = 0;
        for (int x = 0; x < image.getWidth(); x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                int rgb = image.getRGB(x, y);
                int r = (rgb >> 16) & 0xff;
                int g = (rgb >> 8) & 0xff;
                int b = rgb & 0xff;
                if (r > 200 && g < 160 && b < 160) {
                    red++;
                }
            }
        }
        return red;
    }
}
