package dev.zklock.cli;

import java.awt.Color;
import java.util.Locale;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;

/**
 * The look every chart of the command shares (the bench's plot, the torture's partition timeline): a white chart,
 * figures in the root locale, the legend on the right.
 *
 * <p>Holds no state: safe for use by any thread, on a styler confined to the caller. Makes no ZooKeeper call.
 */
public final class ChartStyle {
    private ChartStyle() {}

    /**
     * Makes {@code styler} white with no plot border, its figures in the root locale, and its legend on the right
     * without a border.
     *
     * @param styler the chart's styler, changed in place
     */
    public static void plain(XYStyler styler) {
        styler.setLocale(Locale.ROOT);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setPlotBackgroundColor(Color.WHITE);
        styler.setPlotBorderVisible(false);
        styler.setLegendPosition(Styler.LegendPosition.OutsideE);
        styler.setLegendBorderColor(Color.WHITE);
    }
}
