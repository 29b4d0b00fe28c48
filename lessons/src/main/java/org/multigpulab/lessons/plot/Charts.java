package org.multigpulab.lessons.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The lab's charts, drawn with XChart at 800×450 in one readable style: labelled axes, a legend, markers. */
public final class Charts {

    public static final int WIDTH = 800;
    public static final int HEIGHT = 450;

    private Charts() {}

    /** A line chart of {@code curves}; with {@code unitRange} the y axis runs from 0 to 1 (accuracies). */
    public static XYChart lines(String title, String xTitle, String yTitle, List<Curve> curves, boolean unitRange) {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        // a few curves keep their legend in the chart's empty corner; more would cover the lines
        style(chart.getStyler(), curves.size() <= 3 ? Styler.LegendPosition.InsideSE : Styler.LegendPosition.OutsideS);
        if (unitRange) {
            chart.getStyler().setYAxisMin(0.0);
            chart.getStyler().setYAxisMax(1.0);
        }
        curves.stream().filter(c -> !c.isEmpty()).forEach(c -> addTo(chart, c));
        return chart;
    }

    /**
     * A bar chart with one group of bars per point of the curves' x values (a number of GPUs, say): for
     * counts, where a line would suggest values in between.
     */
    public static CategoryChart bars(String title, String xTitle, String yTitle, List<Curve> curves) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        CategoryStyler style = chart.getStyler();
        style(style, Styler.LegendPosition.OutsideS);
        style.setXAxisDecimalPattern("#");
        style.setLabelsVisible(true);
        style.setDecimalPattern("#0.0##");
        for (Curve c : curves) {
            chart.addSeries(c.label(), c.xs(), c.ys());
        }
        return chart;
    }

    /** The lab's look, shared by every kind of chart: white, light grid, fonts readable at 800×450. */
    private static void style(AxesChartStyler style, Styler.LegendPosition legend) {
        style.setChartBackgroundColor(Color.WHITE);
        style.setPlotBackgroundColor(Color.WHITE);
        style.setPlotGridLinesColor(new Color(220, 220, 220));
        style.setLegendPosition(legend);
        style.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
        style.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        style.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 15));
        style.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    }

    /** Adds or replaces {@code curve} in {@code chart}, for live redraws. */
    public static void update(XYChart chart, Curve curve) {
        if (chart.getSeriesMap().containsKey(curve.label())) {
            chart.updateXYSeries(curve.label(), curve.xs(), curve.ys(), null);
        } else if (!curve.isEmpty()) {
            addTo(chart, curve);
        }
    }

    private static void addTo(XYChart chart, Curve curve) {
        XYSeries series = chart.addSeries(curve.label(), curve.xs(), curve.ys());
        series.setMarker(SeriesMarkers.CIRCLE);
        series.setLineStyle(new BasicStroke(2.5f));
    }
}
