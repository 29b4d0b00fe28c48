package org.multigpulab.lessons.collectives;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.multigpulab.device.CollectiveCostModel;
import org.multigpulab.device.CollectiveCostModel.Term;
import org.multigpulab.lessons.simulate.GoldenSection;

/**
 * The figures of the cost model that are fitted on measurements ({@link CollectiveCostModel#fitted()}), fitted on
 * the calibration set only. Each makes the mean squared log ratio of modelled to measured bus bandwidth least over
 * the sizes of its term ({@link Term}): a launch's over the counted sizes below 1 MB, a latency's over every counted
 * size, a bandwidth's over those of 16 MB and more. Each figure in turn is searched on a log scale (golden sections
 * between a tenth and ten times its value), the others held, and the turns repeat until no figure moves by more than
 * 0.1 %. The error reported is over every counted size.
 */
public record Fit(Map<String, Double> figures, double rmsLogError) {

    /** The best figures for {@code calibration}, starting from {@code model}'s own. */
    public static Fit of(CollectiveCostModel model, List<Measurement> calibration) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String name : new TreeSet<>(model.fitted().keySet())) {
            figures.put(name, model.figures().get(name));
        }
        for (int round = 0; round < 20; round++) {
            double moved = 0;
            for (String name : figures.keySet()) {
                double before = figures.get(name);
                double best = minimise(
                        model, calibration, figures, name, model.fitted().get(name));
                figures.put(name, best);
                moved = Math.max(moved, Math.abs(Math.log(best / before)));
            }
            if (moved < 1e-3) {
                break;
            }
        }
        List<Validation.Comparison> counted =
                Validation.of(model.with(figures), calibration).counted();
        return new Fit(Map.copyOf(figures), Math.sqrt(sumOfSquares(counted) / counted.size()));
    }

    /** Golden-section search of {@code name}'s log over [value / 10, value × 10], the other figures held. */
    private static double minimise(
            CollectiveCostModel model,
            List<Measurement> calibration,
            Map<String, Double> figures,
            String name,
            Term term) {
        double centre = Math.log(figures.get(name));
        Map<String, Double> trial = new LinkedHashMap<>(figures);
        return Math.exp(GoldenSection.minimum(
                x -> {
                    trial.put(name, Math.exp(x));
                    return sumOfSquares(sizesOf(term, Validation.of(model.with(trial), calibration)));
                },
                centre - Math.log(10),
                centre + Math.log(10),
                1e-4));
    }

    /** The comparisons {@code term} is fitted on. */
    private static List<Validation.Comparison> sizesOf(Term term, Validation v) {
        return switch (term) {
            case LAUNCH -> v.counted(false);
            case LATENCY -> v.counted();
            case BANDWIDTH -> v.counted(true);
        };
    }

    /** The sum of squared log ratios of modelled to measured bus bandwidth. */
    private static double sumOfSquares(List<Validation.Comparison> comparisons) {
        return comparisons.stream()
                .mapToDouble(c -> Math.pow(Math.log(c.modelled() / c.measured()), 2))
                .sum();
    }
}
