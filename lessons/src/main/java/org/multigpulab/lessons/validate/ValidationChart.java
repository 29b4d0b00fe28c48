package org.multigpulab.lessons.validate;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.multigpulab.lessons.plot.ChartFiles;
import org.multigpulab.lessons.plot.Charts;
import org.multigpulab.lessons.plot.Curve;

/**
 * Predicted against measured: one point per configuration (simulated sec/epoch over wall sec/epoch), a series per
 * physical device and model; the line y = x where the model is exact, and the tolerance band around it.
 */
public final class ValidationChart {

    private ValidationChart() {}

    /**
     * Draws the chart of {@code runs} and saves it as {@code dir/validate-model.png} and {@code .svg}. (Its XChart
     * types stay in this class, so that the command line loads without XChart, as the GPU check's pack does.)
     */
    public static List<Path> save(List<ModelValidation.Single> runs, double tolerance, Path dir) {
        return ChartFiles.save(of(runs, tolerance), dir, "validate-model");
    }

    static XYChart of(List<ModelValidation.Single> runs, double tolerance) {
        Map<String, Curve> series = new LinkedHashMap<>();
        double high = 0;
        for (ModelValidation.Single s : runs) {
            series.computeIfAbsent(s.model() + " on " + s.physical(), Curve::new)
                    .add(s.wallSec(), s.simSec());
            high = Math.max(high, Math.max(s.wallSec(), s.simSec()));
        }
        XYChart chart = Charts.lines(
                "Simulated vs measured epoch, 1 logical GPU timed as the host",
                "measured sec/epoch (wall)",
                "simulated sec/epoch",
                List.copyOf(series.values()),
                false);
        for (XYSeries s : chart.getSeriesMap().values()) {
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        }
        double from = 0;
        double to = high * 1.1;
        line(chart, "exact (y = x)", from, to, 1, new Color(90, 90, 90), new float[] {1f});
        line(
                chart,
                String.format("±%.0f%%", 100 * tolerance),
                from,
                to,
                1 + tolerance,
                new Color(170, 170, 170),
                new float[] {6f, 4f});
        line(chart, "", from, to, 1 - tolerance, new Color(170, 170, 170), new float[] {6f, 4f});
        chart.getStyler().setXAxisMin(from);
        chart.getStyler().setXAxisMax(to);
        chart.getStyler().setYAxisMin(from);
        chart.getStyler().setYAxisMax(to);
        return chart;
    }

    private static void line(
            XYChart chart, String name, double from, double to, double slope, Color color, float[] dash) {
        // XChart keys series by name: the band's lower edge shares the upper's legend entry by a blank name
        String key = name.isEmpty() ? " " : name;
        XYSeries s = chart.addSeries(key, new double[] {from, to}, new double[] {from * slope, to * slope});
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(color);
        s.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0f));
        s.setShowInLegend(!name.isEmpty());
    }
}
