package org.multigpulab.core.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * How far two trainings from the same start moved the parameters apart, tensor by tensor: for each tensor
 * {@code ‖(a − start) − (b − start)‖ / ‖b − start‖}, in double precision. Measured on the updates and per tensor,
 * so that neither the initial weights (which dominate a norm of the parameters) nor the large weight matrices
 * (which dominate a norm over all tensors) hide a wrong update of a small tensor such as a bias.
 *
 * @param tensors one entry per tensor, in the order of the parameters
 */
public record UpdateDistance(List<Entry> tensors) {

    /**
     * One tensor: its name and {@code ‖Δa − Δb‖ / ‖Δb‖}; {@code 0} where both updates are equal, infinite where
     * only {@code b} left the tensor as it started.
     */
    public record Entry(String name, double relative) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s %.2g", name, relative);
        }
    }

    public UpdateDistance {
        if (tensors.isEmpty()) {
            throw new IllegalArgumentException("no tensors to compare");
        }
        tensors = List.copyOf(tensors);
    }

    /**
     * The distance of the updates that took {@code start} to {@code a} and to {@code b}, relative to the update
     * to {@code b} (the reference).
     *
     * @throws IllegalArgumentException when the three sets differ in count, in a tensor's name or in its size
     */
    public static UpdateDistance of(List<HostTensor> start, List<HostTensor> a, List<HostTensor> b) {
        if (a.size() != start.size() || b.size() != start.size()) {
            throw new IllegalArgumentException(
                    start.size() + " tensors at the start, " + a.size() + " and " + b.size() + " after training");
        }
        List<Entry> entries = new ArrayList<>();
        for (int p = 0; p < start.size(); p++) {
            entries.add(entry(start.get(p), a.get(p), b.get(p)));
        }
        return new UpdateDistance(entries);
    }

    /** {@link #of(List, List, List)} over the tensors of {@code model}'s state that {@link Model#learns}. */
    public static UpdateDistance of(Model model, List<HostTensor> start, List<HostTensor> a, List<HostTensor> b) {
        Predicate<HostTensor> learns = t -> model.learns(t.name());
        return of(
                start.stream().filter(learns).toList(),
                a.stream().filter(learns).toList(),
                b.stream().filter(learns).toList());
    }

    private static Entry entry(HostTensor start, HostTensor a, HostTensor b) {
        if (!a.name().equals(start.name()) || !b.name().equals(start.name())) {
            throw new IllegalArgumentException(
                    "tensor " + start.name() + " at the start is " + a.name() + " and " + b.name() + " after training");
        }
        float[] s = start.values(), x = a.values(), y = b.values();
        if (x.length != s.length || y.length != s.length) {
            throw new IllegalArgumentException(start.name() + " has " + s.length + " values at the start, " + x.length
                    + " and " + y.length + " after training");
        }
        double diff = 0, norm = 0;
        for (int i = 0; i < s.length; i++) {
            double da = (double) x[i] - s[i], db = (double) y[i] - s[i];
            diff += (da - db) * (da - db);
            norm += db * db;
        }
        return new Entry(start.name(), diff == 0 ? 0 : Math.sqrt(diff / norm));
    }

    /** The tensor whose updates differ most, relatively; a NaN counts as the most. */
    public Entry worst() {
        return tensors.stream().max(Comparator.comparingDouble(Entry::relative)).orElseThrow();
    }

    /**
     * The median tensor's distance: with BatchNorm after N(0, 0.01²) weights float32 rounding makes a few tensors'
     * updates drift far more than the rest, so the median says what most of the model did.
     */
    public double median() {
        double[] sorted = tensors.stream().mapToDouble(Entry::relative).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    /** {@code worst b1 3.1e-06 (W1 2.0e-07, b1 3.1e-06, …)}, for an assertion's message. */
    @Override
    public String toString() {
        return "worst " + worst() + " (" + tensors.stream().map(Entry::toString).collect(Collectors.joining(", "))
                + ")";
    }
}
