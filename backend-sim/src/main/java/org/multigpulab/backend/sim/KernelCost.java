package org.multigpulab.backend.sim;

import java.util.List;
import java.util.stream.IntStream;

/**
 * The time of one kernel on a measured device: a fixed cost per call (the dispatch, the threads' start and join,
 * the edges of a loop) plus a cost per FLOP and a cost per byte moved. Small calls are dominated by the fixed
 * cost, large ones by whichever of arithmetic and memory their shape needs most: the rate a kernel reaches grows
 * with its size, as it does on the device. Fitted to measurements of the kernel at several sizes and shapes.
 */
record KernelCost(double fixedSec, double secPerFlop, double secPerByte) {

    /** One measurement: a call of {@code flops} FLOPs and {@code bytes} bytes took {@code seconds}. */
    record Sample(long flops, long bytes, double seconds) {}

    double seconds(long flops, long bytes) {
        return fixedSec + flops * secPerFlop + bytes * secPerByte;
    }

    /**
     * The costs that fit {@code samples} best in relative error (a 10 µs call off by 1 µs weighs as much as a
     * 10 ms call off by 1 ms), none of them negative: every subset of the three terms is fitted by least squares
     * and the best one without a negative coefficient is kept, which is the non-negative least-squares fit. A kernel whose FLOPs grow with its bytes (every
     * element-wise one) is fitted by one of the two, as the data cannot tell them apart.
     */
    static KernelCost fit(List<Sample> samples) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples to fit");
        }
        double[] best = null;
        double bestError = Double.POSITIVE_INFINITY;
        for (int terms = 1; terms < 8; terms++) {
            double[] c = leastSquares(samples, terms);
            if (c == null) {
                continue;
            }
            double error = squaredRelativeError(samples, c);
            if (error < bestError) {
                best = c;
                bestError = error;
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("the samples fit no non-negative cost: " + samples);
        }
        return new KernelCost(best[0], best[1], best[2]);
    }

    /** The fitted cost of {@code samples}, worst relative error: how far the model is from its own data. */
    static double relativeError(List<Sample> samples, KernelCost cost) {
        return relativeError(samples, new double[] {cost.fixedSec, cost.secPerFlop, cost.secPerByte});
    }

    private static double relativeError(List<Sample> samples, double[] c) {
        double worst = 0;
        for (Sample s : samples) {
            worst = Math.max(worst, Math.abs(dot(c, features(s)) / s.seconds() - 1));
        }
        return worst;
    }

    /**
     * Least squares over the terms in bit mask {@code terms} (1: fixed, 2: per FLOP, 4: per byte), each row
     * divided by its measured time; null when the system is singular or a coefficient comes out negative.
     */
    private static double[] leastSquares(List<Sample> samples, int terms) {
        int[] used = IntStream.range(0, 3).filter(i -> (terms & (1 << i)) != 0).toArray();
        int k = used.length;
        double[][] normal = new double[k][k + 1];
        for (Sample s : samples) {
            double[] f = features(s);
            double w = 1 / (s.seconds() * s.seconds());
            for (int i = 0; i < k; i++) {
                for (int j = 0; j < k; j++) {
                    normal[i][j] += w * f[used[i]] * f[used[j]];
                }
                normal[i][k] += w * f[used[i]] * s.seconds();
            }
        }
        double[] solved = solve(normal);
        if (solved == null) {
            return null;
        }
        double[] c = new double[3];
        for (int i = 0; i < k; i++) {
            if (!(solved[i] >= 0)) {
                return null;
            }
            c[used[i]] = solved[i];
        }
        return c;
    }

    private static double squaredRelativeError(List<Sample> samples, double[] c) {
        double sum = 0;
        for (Sample s : samples) {
            double e = dot(c, features(s)) / s.seconds() - 1;
            sum += e * e;
        }
        return sum;
    }

    private static double[] features(Sample s) {
        return new double[] {1, s.flops(), s.bytes()};
    }

    private static double dot(double[] a, double[] b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    }

    /** Gauss-Jordan elimination with partial pivoting on the augmented matrix {@code m}; null if singular. */
    private static double[] solve(double[][] m) {
        int n = m.length;
        // scale each column so that FLOPs (1e9) and seconds (1e-3) do not meet in one pivot test
        double[] scale = new double[n];
        for (int j = 0; j < n; j++) {
            scale[j] = Math.sqrt(Math.abs(m[j][j]));
            if (scale[j] == 0) {
                return null;
            }
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                m[i][j] /= scale[i] * scale[j];
            }
            m[i][n] /= scale[i];
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            for (int r = col + 1; r < n; r++) {
                if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
                    pivot = r;
                }
            }
            if (Math.abs(m[pivot][col]) < 1e-9) {
                return null;
            }
            double[] t = m[col];
            m[col] = m[pivot];
            m[pivot] = t;
            for (int r = 0; r < n; r++) {
                if (r != col) {
                    double f = m[r][col] / m[col][col];
                    for (int c = col; c <= n; c++) {
                        m[r][c] -= f * m[col][c];
                    }
                }
            }
        }
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = m[i][n] / m[i][i] / scale[i];
        }
        return x;
    }
}
