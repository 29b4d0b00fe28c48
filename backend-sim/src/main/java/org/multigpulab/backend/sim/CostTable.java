package org.multigpulab.backend.sim;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A kernel's measured seconds at a few sizes of one shape, and between them read on a log-log scale: a straight
 * line there is a power law, which follows a rate that changes with the size (a call that fits in a core's cache
 * runs faster per byte than one that streams from memory; a GEMM of 16 rows does not fill the vector registers as
 * one of 1,024 does) where one fixed cost and one rate for all sizes cannot. Below the smallest size the first
 * segment's power goes on (between 0, a fixed cost, and 1, a constant rate); above the largest, each further
 * unit costs what it cost between the two largest sizes (the fixed part of a call is not paid again), at least
 * half of the largest call's cost per unit and at most all of it.
 *
 * @param work the sizes measured, increasing: FLOPs for a layer's calls, bytes for an element-wise kernel
 * @param seconds the measured seconds at each size
 */
record CostTable(double[] work, double[] seconds) {

    /** One measurement: a call of {@code work} (FLOPs or bytes) took {@code seconds}. */
    record Point(double work, double seconds) {}

    CostTable {
        if (work.length == 0 || work.length != seconds.length) {
            throw new IllegalArgumentException("a cost table needs as many times as sizes, one at least");
        }
        for (int i = 0; i < work.length; i++) {
            if (!(work[i] > 0) || !(seconds[i] > 0) || (i > 0 && !(work[i] > work[i - 1]))) {
                throw new IllegalArgumentException("a cost table needs positive, increasing sizes and positive times: "
                        + Arrays.toString(work) + " " + Arrays.toString(seconds));
            }
        }
    }

    /** The table of {@code points}: sorted by size, and the times of one size measured more than once averaged. */
    static CostTable of(List<Point> points) {
        List<Point> sorted = points.stream()
                .sorted((p, q) -> Double.compare(p.work(), q.work()))
                .toList();
        double[] work = new double[sorted.size()];
        double[] seconds = new double[sorted.size()];
        int n = 0;
        int same = 0;
        for (Point p : sorted) {
            if (n > 0 && work[n - 1] == p.work()) {
                same++;
                seconds[n - 1] += (p.seconds() - seconds[n - 1]) / same;
            } else {
                work[n] = p.work();
                seconds[n] = p.seconds();
                n++;
                same = 1;
            }
        }
        return new CostTable(Arrays.copyOf(work, n), Arrays.copyOf(seconds, n));
    }

    /** The seconds of a call of {@code size} (FLOPs or bytes, as the table was measured in). */
    double seconds(double size) {
        int last = work.length - 1;
        double w = Math.max(size, 1);
        if (w >= work[last]) {
            double average = seconds[last] / work[last];
            double marginal = last == 0 ? average : (seconds[last] - seconds[last - 1]) / (work[last] - work[last - 1]);
            return seconds[last] + (w - work[last]) * Math.clamp(marginal, average / 2, average);
        }
        if (w <= work[0]) {
            double power = last == 0 ? 1 : Math.clamp(slope(0), 0, 1);
            return seconds[0] * Math.pow(w / work[0], power);
        }
        int i = 0;
        while (w > work[i + 1]) {
            i++;
        }
        return seconds[i] * Math.pow(w / work[i], slope(i));
    }

    /** The power between sizes {@code i} and {@code i + 1}: the slope of the line through them on a log-log scale. */
    private double slope(int i) {
        return Math.log(seconds[i + 1] / seconds[i]) / Math.log(work[i + 1] / work[i]);
    }

    /** {@code size:seconds} pairs separated by spaces, each number as it is, the form {@link #parse} reads back. */
    String text() {
        return IntStream.range(0, work.length)
                .mapToObj(i -> work[i] + ":" + seconds[i])
                .collect(Collectors.joining(" "));
    }

    static CostTable parse(String text) {
        String[] pairs = text.strip().split("\\s+");
        double[] work = new double[pairs.length];
        double[] seconds = new double[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            String[] p = pairs[i].split(":");
            if (p.length != 2) {
                throw new IllegalArgumentException("not a size:seconds pair: " + pairs[i]);
            }
            work[i] = Double.parseDouble(p[0]);
            seconds[i] = Double.parseDouble(p[1]);
        }
        return new CostTable(work, seconds);
    }

    /** Records compare arrays by identity; two tables are equal when their sizes and times are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CostTable t && Arrays.equals(work, t.work) && Arrays.equals(seconds, t.seconds);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(work) + Arrays.hashCode(seconds);
    }

    @Override
    public String toString() {
        return "CostTable[" + text() + "]";
    }
}
