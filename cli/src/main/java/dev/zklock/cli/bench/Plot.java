package dev.zklock.cli.bench;

import dev.zklock.cli.ChartStyle;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws acquisitions per second against the number of contenders, one line per library and way of contending, as a
 * PNG image, with XChart. The x axis is logarithmic (contenders 2, 8, 32 are evenly spaced); the y axis starts at
 * zero. zklock's lines are solid, Curator's dashed; the lines of one recipe and way of contending share a color.
 */
final class Plot {
    private static final int WIDTH = 1060;
    private static final int HEIGHT = 560;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd), new Color(0x8c564b)
    };
    private static final BasicStroke SOLID = new BasicStroke(2.5f);
    private static final BasicStroke DASHED =
            new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 6f}, 0f);

    /**
     * One line of the plot.
     *
     * @param label the legend's text
     * @param zklock whether it is zklock's (solid) or Curator's (dashed)
     * @param colorIndex lines of one recipe and way of contending share a color
     * @param points acquisitions per second by number of contenders
     */
    record Series(String label, boolean zklock, int colorIndex, TreeMap<Integer, Double> points) {}

    private Plot() {}

    /** Returns the plot's lines from a bench report: one per recipe, series and side, for scenarios with a series. */
    static List<Series> seriesOf(BenchReport report) {
        Map<String, Series> lines = new LinkedHashMap<>();
        Map<String, Integer> colors = new HashMap<>();
        for (BenchReport.Result result : report.results()) {
            Scenario scenario = result.scenario();
            if (scenario.series().isEmpty()) {
                continue;
            }
            String family = scenario.group() + ", " + scenario.series();
            int color = colors.computeIfAbsent(family, f -> colors.size());
            for (Side side : List.of(Side.ZKLOCK, Side.CURATOR)) {
                Measurement m = result.measured().get(side);
                if (m == null) {
                    continue;
                }
                String name =
                        (side == Side.ZKLOCK ? zklockName(scenario) : curatorName(scenario)) + ", " + scenario.series();
                lines.computeIfAbsent(name, n -> new Series(n, side == Side.ZKLOCK, color, new TreeMap<>()))
                        .points()
                        .put(scenario.contenders(), m.perSecond());
            }
        }
        return new ArrayList<>(lines.values());
    }

    /**
     * Writes the plot to {@code file} as PNG. Points whose rate is not known (NaN) are left out.
     *
     * @throws IOException if the file cannot be written
     * @throws IllegalArgumentException if there is nothing to plot
     */
    static void write(List<Series> series, String title, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle("contenders")
                .yAxisTitle("acquisitions/s")
                .build();
        style(chart.getStyler());
        for (Series s : series) {
            List<Integer> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            s.points().forEach((x, y) -> {
                if (!Double.isNaN(y)) {
                    xs.add(x);
                    ys.add(y);
                }
            });
            if (xs.isEmpty()) {
                continue;
            }
            Color color = COLORS[s.colorIndex() % COLORS.length];
            XYSeries line = chart.addSeries(s.label(), xs, ys);
            line.setLineColor(color);
            line.setMarkerColor(color);
            line.setMarker(SeriesMarkers.CIRCLE);
            line.setLineStyle(s.zklock() ? SOLID : DASHED);
        }
        if (chart.getSeriesCollection().isEmpty()) {
            throw new IllegalArgumentException("nothing to plot into " + file + ": no contended scenario ran");
        }
        double highest = chart.getSeriesCollection().stream()
                .mapToDouble(XYSeries::getYMax)
                .max()
                .orElseThrow();
        chart.getStyler().setYAxisMax(Math.max(1, highest * 1.05)); // the highest point off the frame, even at 0
        if (!ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
            throw new IOException("no PNG writer for " + file);
        }
    }

    /** White, figures as in the report, a logarithmic x axis labelled at 1 to 9 times each power of ten, y from zero, the legend on the right. */
    private static void style(XYStyler styler) {
        ChartStyle.plain(styler);
        styler.setPlotGridVerticalLinesVisible(false);
        styler.setXAxisLogarithmic(true);
        styler.setXAxisLogarithmicDecadeOnly(false);
        styler.setYAxisMin(0.0);
        styler.setMarkerSize(8);
    }

    private static String zklockName(Scenario scenario) {
        return scenario.group().substring(0, scenario.group().indexOf(" vs "));
    }

    private static String curatorName(Scenario scenario) {
        return scenario.group().substring(scenario.group().indexOf(" vs ") + 4);
    }
}
