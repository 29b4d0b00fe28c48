package org.multigpulab.lessons.collectives;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.lessons.simulate.GoldenSection;

/**
 * The figures of the cost model that are fitted on measurements ({@link CollectiveCostModel#fitted()}), fitted on
 * the calibration set only: those that make the mean squared log ratio of modelled to measured bus bandwidth
 * least over every size the bands count. Each figure in turn is searched on a log scale (golden sections between a
 * tenth and ten times its value), and the turns repeat until no figure moves by more than 0.1 %.
 */
public record Fit(Map<String, Double> figures, double rmsLogError) {

    /** The best figures for {@code calibration}, starting from {@code model}'s own. */
    public static Fit of(CollectiveCostModel model, List<Measurement> calibration) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String name : new TreeSet<>(model.fitted())) {
            figures.put(name, model.figures().get(name));
        }
        for (int round = 0; round < 20; round++) {
            double moved = 0;
            for (String name : figures.keySet()) {
                double before = figures.get(name);
                double best = minimise(model, calibration, figures, name);
                figures.put(name, best);
                moved = Math.max(moved, Math.abs(Math.log(best / before)));
            }
            if (moved < 1e-3) {
                break;
            }
        }
        return new Fit(Map.copyOf(figures), Math.sqrt(cost(model.with(figures), calibration)));
    }

    /** Golden-section search of {@code name}'s log over [value / 10, value × 10], the other figures held. */
    private static double minimise(
            CollectiveCostModel model, List<Measurement> calibration, Map<String, Double> figures, String name) {
        double centre = Math.log(figures.get(name));
        Map<String, Double> trial = new LinkedHashMap<>(figures);
        return Math.exp(GoldenSection.minimum(
                x -> {
                    trial.put(name, Math.exp(x));
                    return cost(model.with(trial), calibration);
                },
                centre - Math.log(10),
                centre + Math.log(10),
                1e-4));
    }

    /** The mean squared log ratio of modelled to measured bus bandwidth over the sizes the bands count. */
    static double cost(CollectiveCostModel model, List<Measurement> measurements) {
        List<Validation.Comparison> counted = Validation.of(model, measurements).comparisons().stream()
                .filter(Validation.Comparison::counted)
                .toList();
        return counted.stream()
                        .mapToDouble(c -> Math.pow(Math.log(c.modelled() / c.measured()), 2))
                        .sum()
                / counted.size();
    }
}
