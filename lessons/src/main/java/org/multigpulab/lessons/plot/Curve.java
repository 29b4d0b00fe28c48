package org.multigpulab.lessons.plot;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of a chart: a label for the legend, the y axis it is read against, and its points, added as they come.
 * Not thread-safe.
 */
public final class Curve {

    /** Which y axis a curve is read against: the chart's own on the left, or a second one on the right. */
    public enum YAxis {
        LEFT,
        RIGHT
    }

    private final String label;
    private final YAxis axis;
    private final List<Double> xs = new ArrayList<>();
    private final List<Double> ys = new ArrayList<>();

    /** A curve read against the left y axis. */
    public Curve(String label) {
        this(label, YAxis.LEFT);
    }

    public Curve(String label, YAxis axis) {
        this.label = label;
        this.axis = axis;
    }

    public Curve add(double x, double y) {
        xs.add(x);
        ys.add(y);
        return this;
    }

    public String label() {
        return label;
    }

    public YAxis axis() {
        return axis;
    }

    public List<Double> xs() {
        return List.copyOf(xs);
    }

    public List<Double> ys() {
        return List.copyOf(ys);
    }

    public boolean isEmpty() {
        return xs.isEmpty();
    }
}
