package org.multigpulab.lessons.plot;

import java.util.ArrayList;
import java.util.List;

/** One line of a chart: a label for the legend and its points, added as they come. Not thread-safe. */
public final class Curve {

    private final String label;
    private final List<Double> xs = new ArrayList<>();
    private final List<Double> ys = new ArrayList<>();

    public Curve(String label) {
        this.label = label;
    }

    public Curve add(double x, double y) {
        xs.add(x);
        ys.add(y);
        return this;
    }

    public String label() {
        return label;
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
