package org.multigpulab.core.model;

import java.util.List;

/** How far two sets of the same parameters are apart. Stateless. */
public final class ParameterDistance {

    private ParameterDistance() {}

    /**
     * {@code ‖a − b‖ / ‖b‖} over all parameters taken as one vector, in double precision. The initial weights
     * dominate it, so it says little about whether two trainings agree: compare their updates with
     * {@link UpdateDistance} for that.
     *
     * @throws IllegalArgumentException when the two sets differ in count or in any tensor's size
     */
    public static double relative(List<HostTensor> a, List<HostTensor> b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException(a.size() + " tensors against " + b.size());
        }
        double diff = 0, norm = 0;
        for (int p = 0; p < a.size(); p++) {
            float[] x = a.get(p).values(), y = b.get(p).values();
            if (x.length != y.length) {
                throw new IllegalArgumentException(
                        a.get(p).name() + " has " + x.length + " values against " + y.length);
            }
            for (int i = 0; i < x.length; i++) {
                double d = (double) x[i] - y[i];
                diff += d * d;
                norm += (double) y[i] * y[i];
            }
        }
        return Math.sqrt(diff / norm);
    }
}
