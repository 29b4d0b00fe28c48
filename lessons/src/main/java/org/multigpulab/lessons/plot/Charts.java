package org.multigpulab.lessons.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.math.BigDecimal;
import java.math.MathContext;
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

    /** XChart's number of the y axis group drawn on the right. */
    private static final int RIGHT = 1;

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
            // labels one decimal each, so 0.1 to 0.9 never depend on how XChart guesses a pattern from the range
            chart.getStyler().setYAxisDecimalPattern("0.0");
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

    /**
     * A line chart against the epoch, filled as training runs, with its legend below the plot: inside, it would
     * cover the curves' last points, where they end. {@link #epochAxis} fixes the x axis once the epochs are known.
     */
    public static XYChart perEpoch(String title, String yTitle, boolean unitRange) {
        XYChart chart = lines(title, "epoch", yTitle, List.of(), unitRange);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        return chart;
    }

    /**
     * Labels the y axes with three significant digits, for values whose size is not known in advance (seconds
     * that are 4.4 on one run and 0.0047 on another); XChart's own pattern drops the leading zero.
     */
    public static void significantYLabels(XYChart chart) {
        chart.setCustomYAxisTickLabelsFormatter(y -> BigDecimal.valueOf(y)
                .round(new MathContext(3))
                .stripTrailingZeros()
                .toPlainString());
    }

    /**
     * Fixes the x axis to epochs 1…{@code epochs} before any point is drawn, as the notebook's {@code Animator}
     * does with {@code xlim=[1, num_epochs]}, labelled at whole epochs only.
     */
    public static void epochAxis(XYChart chart, int epochs) {
        // one epoch would make an empty range: centre its single point instead
        double pad = epochs == 1 ? 0.5 : 0;
        chart.getStyler().setXAxisMin(1 - pad);
        chart.getStyler().setXAxisMax(epochs + pad);
        chart.setCustomXAxisTickLabelsFormatter(x -> x == Math.rint(x) ? Long.toString(Math.round(x)) : "");
    }

    /**
     * Gives the curves on {@link Curve.YAxis#RIGHT} an axis on the right, titled {@code title}, from 0 to
     * {@code max}, or to their largest value when {@code max} is NaN.
     */
    public static void rightAxis(XYChart chart, String title, double max) {
        chart.setYAxisGroupTitle(RIGHT, title);
        chart.getStyler().setYAxisGroupPosition(RIGHT, Styler.YAxisPosition.Right);
        chart.getStyler().setYAxisMin(RIGHT, 0.0);
        chart.getStyler().setYAxisMax(RIGHT, Double.isNaN(max) ? null : max);
    }

    private static void addTo(XYChart chart, Curve curve) {
        XYSeries series = chart.addSeries(curve.label(), curve.xs(), curve.ys());
        series.setYAxisGroup(curve.axis() == Curve.YAxis.RIGHT ? RIGHT : 0);
        series.setMarker(SeriesMarkers.CIRCLE);
        series.setLineStyle(new BasicStroke(2.5f));
    }
}
