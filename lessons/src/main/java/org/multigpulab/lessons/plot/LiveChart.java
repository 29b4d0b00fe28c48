package org.multigpulab.lessons.plot;

import java.awt.GraphicsEnvironment;
import java.nio.file.Path;
import java.util.List;
import javax.swing.JFrame;
import javax.swing.SwingUtilities;
import org.knowm.xchart.XChartPanel;
import org.knowm.xchart.XYChart;

/**
 * The notebook's {@code Animator}: a chart redrawn as points arrive, in a window when a display is present,
 * and saved as PNG and SVG after every redraw, so the files always hold the latest whole chart.
 */
public final class LiveChart {

    private final XYChart chart;
    private final Path dir;
    private final String name;
    private XChartPanel<XYChart> panel;

    /** A chart saved as {@code dir/name.png|svg}, shown live when {@code window} and a display is there. */
    public LiveChart(XYChart chart, Path dir, String name, boolean window) {
        this.chart = chart;
        this.dir = dir;
        this.name = name;
        if (window && !GraphicsEnvironment.isHeadless()) {
            panel = new XChartPanel<>(chart);
            SwingUtilities.invokeLater(() -> {
                JFrame frame = new JFrame(chart.getTitle());
                frame.setDefaultCloseOperation(JFrame.DISPOSE_ON_CLOSE);
                frame.add(panel);
                frame.pack();
                frame.setVisible(true);
            });
        }
    }

    /** Redraws with the current points of {@code curves} and saves the files. */
    public List<Path> redraw(List<Curve> curves) {
        curves.forEach(c -> Charts.update(chart, c));
        if (panel != null) {
            SwingUtilities.invokeLater(panel::repaint);
        }
        return ChartFiles.save(chart, dir, name);
    }
}
