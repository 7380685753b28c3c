package dev.zklock.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * Draws acquisitions per second against the number of contenders, one line per library and way of contending, as a
 * PNG image, with plain Java2D. The x axis is logarithmic (contenders 2, 8, 32 are evenly spaced); the y axis starts
 * at zero. zklock's lines are solid, Curator's dashed.
 */
final class Plot {
    private static final int WIDTH = 1060;
    private static final int HEIGHT = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = 400;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final Color[] COLORS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd), new Color(0x8c564b)
    };

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
     * Writes the plot to {@code file} as PNG.
     *
     * @throws IOException if the file cannot be written
     * @throws IllegalArgumentException if there is nothing to plot
     */
    static void write(List<Series> series, String title, Path file) throws IOException {
        if (series.stream().allMatch(s -> s.points().isEmpty())) {
            throw new IllegalArgumentException("nothing to plot into " + file + ": no contended scenario ran");
        }
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            Axes axes = Axes.of(series);
            drawAxes(g, axes, title);
            for (Series s : series) {
                drawSeries(g, axes, s);
            }
            drawLegend(g, series);
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer for " + file);
        }
    }

    private static void drawAxes(Graphics2D g, Axes axes, String title) {
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, LEFT, TOP - 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        FontMetrics metrics = g.getFontMetrics();
        int bottom = HEIGHT - BOTTOM;
        g.drawLine(LEFT, bottom, WIDTH - RIGHT, bottom);
        g.drawLine(LEFT, TOP, LEFT, bottom);
        for (int x : axes.contenders()) {
            int px = axes.x(x);
            g.drawLine(px, bottom, px, bottom + 5);
            String label = String.valueOf(x);
            g.drawString(label, px - metrics.stringWidth(label) / 2, bottom + 20);
        }
        g.drawString("contenders", (LEFT + WIDTH - RIGHT) / 2 - 30, bottom + 42);
        for (int i = 0; i <= 5; i++) {
            double value = axes.maxY() * i / 5;
            int py = axes.y(value);
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT + 1, py, WIDTH - RIGHT, py);
            g.setColor(Color.BLACK);
            String label = String.format(Locale.ROOT, "%.0f", value);
            g.drawString(label, LEFT - 8 - metrics.stringWidth(label), py + 4);
        }
        g.rotate(-Math.PI / 2);
        g.drawString("acquisitions/s", -(TOP + bottom) / 2 - 40, 20);
        g.rotate(Math.PI / 2);
    }

    private static void drawSeries(Graphics2D g, Axes axes, Series series) {
        g.setColor(COLORS[series.colorIndex() % COLORS.length]);
        g.setStroke(stroke(series.zklock()));
        int[] previous = null;
        for (Map.Entry<Integer, Double> point : series.points().entrySet()) {
            int[] p = {axes.x(point.getKey()), axes.y(point.getValue())};
            if (previous != null) {
                g.drawLine(previous[0], previous[1], p[0], p[1]);
            }
            g.fillOval(p[0] - 4, p[1] - 4, 8, 8);
            previous = p;
        }
    }

    private static void drawLegend(Graphics2D g, List<Series> series) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int x = WIDTH - RIGHT + 20;
        int y = TOP + 10;
        for (Series s : series) {
            g.setColor(COLORS[s.colorIndex() % COLORS.length]);
            g.setStroke(stroke(s.zklock()));
            g.drawLine(x, y - 4, x + 30, y - 4);
            g.setColor(Color.BLACK);
            g.drawString(s.label(), x + 38, y);
            y += 20;
        }
    }

    private static Stroke stroke(boolean solid) {
        return solid
                ? new BasicStroke(2.5f)
                : new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {8f, 6f}, 0f);
    }

    private static String zklockName(Scenario scenario) {
        return scenario.group().substring(0, scenario.group().indexOf(" vs "));
    }

    private static String curatorName(Scenario scenario) {
        return scenario.group().substring(scenario.group().indexOf(" vs ") + 4);
    }

    /** The scales: contenders on a log axis, acquisitions/s from zero to a little above the largest. */
    private record Axes(List<Integer> contenders, double maxY) {
        static Axes of(List<Series> series) {
            TreeSet<Integer> xs = new TreeSet<>();
            double max = 0;
            for (Series s : series) {
                xs.addAll(s.points().keySet());
                for (double y : s.points().values()) {
                    max = Double.isNaN(y) ? max : Math.max(max, y);
                }
            }
            return new Axes(List.copyOf(xs), 5 * niceStep(max <= 0 ? 1 : max * 1.05 / 5));
        }

        /** Returns the smallest of 1, 2 and 5 times a power of ten that is at least {@code step}. */
        static double niceStep(double step) {
            double power = Math.pow(10, Math.floor(Math.log10(step)));
            for (double factor : new double[] {1, 2, 5}) {
                if (factor * power >= step) {
                    return factor * power;
                }
            }
            return 10 * power;
        }

        int x(int contenders) {
            double min = Math.log(this.contenders.get(0));
            double span = Math.log(this.contenders.get(this.contenders.size() - 1)) - min;
            double at = span == 0 ? 0.5 : (Math.log(contenders) - min) / span;
            return LEFT + 20 + (int) Math.round(at * (WIDTH - RIGHT - LEFT - 40));
        }

        int y(double value) {
            return HEIGHT - BOTTOM - (int) Math.round(value / maxY * (HEIGHT - BOTTOM - TOP));
        }
    }
}
