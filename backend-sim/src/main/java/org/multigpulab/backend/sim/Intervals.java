package org.multigpulab.backend.sim;

import java.util.Arrays;

/**
 * Spans of simulated time that may overlap, and the time they cover together. A span that starts where the
 * previous one ended (back-to-back kernels) extends it instead of adding one, so a busy device keeps few.
 */
final class Intervals {

    private double[] starts = new double[64];
    private double[] ends = new double[64];
    private int size;

    void add(double start, double end) {
        if (end <= start) {
            return;
        }
        if (size > 0 && start >= starts[size - 1] && start <= ends[size - 1]) {
            ends[size - 1] = Math.max(ends[size - 1], end);
            return;
        }
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, 2 * size);
            ends = Arrays.copyOf(ends, 2 * size);
        }
        starts[size] = start;
        ends[size] = end;
        size++;
    }

    /** The total time covered by at least one span. */
    double union() {
        Integer[] idx = new Integer[size];
        for (int i = 0; i < size; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Double.compare(starts[a], starts[b]));
        double total = 0;
        double coveredTo = Double.NEGATIVE_INFINITY;
        for (int i : idx) {
            double from = Math.max(starts[i], coveredTo);
            if (ends[i] > from) {
                total += ends[i] - from;
                coveredTo = ends[i];
            }
        }
        return total;
    }
}
