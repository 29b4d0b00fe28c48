package org.multigpulab.lessons.simulate;

import java.util.function.DoubleUnaryOperator;

/**
 * The golden-section search for the least of a function of one variable that falls and then rises over an interval:
 * each step evaluates it at the two golden points and keeps the part of the interval on the lower one's side.
 */
public final class GoldenSection {

    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;

    private GoldenSection() {}

    /** Where {@code f} is least in {@code [lo, hi]}, to within {@code tolerance}. */
    public static double minimum(DoubleUnaryOperator f, double lo, double hi, double tolerance) {
        while (hi - lo > tolerance) {
            double a = hi - GOLDEN * (hi - lo), b = lo + GOLDEN * (hi - lo);
            if (f.applyAsDouble(a) < f.applyAsDouble(b)) {
                hi = b;
            } else {
                lo = a;
            }
        }
        return (lo + hi) / 2;
    }
}
