package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Plot} without a bench run: headless PNG output, and what it leaves out. */
final class PlotTest {
    @TempDir
    Path dir;

    @Test
    void write_someRatesUnknown_drawsTheOthers() throws Exception {
        Path png = dir.resolve("plot.png");

        Plot.write(
                List.of(
                        series("ZkReentrantLock, separate clients", true, Map.of(2, 650.0, 8, Double.NaN)),
                        series("InterProcessMutex, separate clients", false, Map.of(2, Double.NaN))),
                "title",
                png);

        BufferedImage image = ImageIO.read(png.toFile());
        assertThat(image.getWidth()).isEqualTo(1060);
        assertThat(image.getHeight()).isEqualTo(560);
    }

    @Test
    void write_onlyUnknownRates_throwsNamingTheFile() {
        Path png = dir.resolve("empty.png");

        assertThatThrownBy(() -> Plot.write(
                        List.of(series("InterProcessMutex, separate clients", false, Map.of(2, Double.NaN))),
                        "title",
                        png))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(png.toString());
        assertThat(png).doesNotExist();
    }

    private static Plot.Series series(String label, boolean zklock, Map<Integer, Double> points) {
        return new Plot.Series(label, zklock, 0, new TreeMap<>(points));
    }
}
