package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.multigpulab.device.BiasShape;

/**
 * BatchNorm's kernels on a tensor viewed as {@code [outer, channels, inner]} ({@link BiasShape}): each channel is
 * {@code outer} planes of {@code inner} contiguous floats, {@code channels · inner} apart.
 *
 * <p>The sums run over the channels on the cores, each channel's whole sum on one thread in one fixed order, so a
 * result never depends on how the loop was cut or which thread ran it. They are taken in float vector lanes over a
 * block of about {@link #BLOCK} values, whose lanes are added first to last into a double: each float sum adds a few
 * dozen values, so 256 × 784 values a channel lose no more than a few units in the seventh digit. The element-wise
 * kernels run over planes, each channel's factors worked out once in double.
 */
final class BatchNorm {

    private static final VectorSpecies<Float> S = Gemm.species();
    private static final int L = S.length();

    /** Values a float partial sum adds, spread over its lanes, before it goes into the channel's double. */
    private static final int BLOCK = 1024;

    /** Each channel's factors, the calling thread's, which the cores' threads then read. */
    private static final Scratch<float[]> FACTORS = Scratch.floats();

    private BatchNorm() {}

    /** How many of a channel's planes a float partial sum covers. */
    private static int planesPerBlock(int inner) {
        return Math.max(1, BLOCK / inner);
    }

    /**
     * {@code sums[c] = Σ x[o, c, i]}: a convolution's bias gradient, and BatchNorm's Σx, whose mean the
     * normalisation subtracts from values that may agree to the fourth digit, so it needs the sum to a few units in
     * the seventh.
     */
    static void channelSums(float[] x, int xOff, float[] sums, int sumsOff, BiasShape s) {
        int channels = s.channels(), inner = s.inner(), outer = s.outer(), stride = channels * inner;
        int block = planesPerBlock(inner), whole = inner / L * L;
        Parallel.forRange(channels, s.length(), (chunk, from, to) -> {
            for (int c = from; c < to; c++) {
                double total = 0;
                for (int o0 = 0; o0 < outer; o0 += block) {
                    FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S);
                    float rest = 0;
                    for (int o = o0, o1 = Math.min(outer, o0 + block); o < o1; o++) {
                        int p = xOff + o * stride + c * inner, i = 0;
                        for (; i + 2 * L <= whole; i += 2 * L) {
                            a0 = a0.add(FloatVector.fromArray(S, x, p + i));
                            a1 = a1.add(FloatVector.fromArray(S, x, p + i + L));
                        }
                        if (i < whole) {
                            a0 = a0.add(FloatVector.fromArray(S, x, p + i));
                        }
                        for (i = whole; i < inner; i++) {
                            rest += x[p + i];
                        }
                    }
                    total += (double) Vectors.sumLanes(a0.add(a1)) + rest;
                }
                sums[sumsOff + c] = (float) total;
            }
        });
    }

    /** {@code m2[c] = Σ (x − mean[c])²}. */
    static void squaredDeviations(float[] x, int xOff, float[] mean, int meanOff, float[] m2, int m2Off, BiasShape s) {
        int channels = s.channels(), inner = s.inner(), outer = s.outer(), stride = channels * inner;
        int block = planesPerBlock(inner), whole = inner / L * L;
        Parallel.forRange(channels, 3L * s.length(), (chunk, from, to) -> {
            for (int c = from; c < to; c++) {
                float mu = mean[meanOff + c];
                FloatVector m = FloatVector.broadcast(S, mu);
                double total = 0;
                for (int o0 = 0; o0 < outer; o0 += block) {
                    FloatVector a0 = FloatVector.zero(S), a1 = FloatVector.zero(S);
                    float rest = 0;
                    for (int o = o0, o1 = Math.min(outer, o0 + block); o < o1; o++) {
                        int p = xOff + o * stride + c * inner, i = 0;
                        for (; i + 2 * L <= whole; i += 2 * L) {
                            FloatVector d0 = FloatVector.fromArray(S, x, p + i).sub(m);
                            FloatVector d1 =
                                    FloatVector.fromArray(S, x, p + i + L).sub(m);
                            a0 = d0.fma(d0, a0);
                            a1 = d1.fma(d1, a1);
                        }
                        if (i < whole) {
                            FloatVector d = FloatVector.fromArray(S, x, p + i).sub(m);
                            a0 = d.fma(d, a0);
                        }
                        for (i = whole; i < inner; i++) {
                            float d = x[p + i] - mu;
                            rest = Math.fma(d, d, rest);
                        }
                    }
                    total += (double) Vectors.sumLanes(a0.add(a1)) + rest;
                }
                m2[m2Off + c] = (float) total;
            }
        });
    }

    /**
     * {@code y = (x − mean[c]) · gamma[c] / √(var[c] + eps) + beta[c]}: each channel's scale taken in double and
     * rounded once, then one fused multiply-add a value.
     */
    static void forward(
            float[] x,
            int xOff,
            float[] mean,
            int meanOff,
            float[] var,
            int varOff,
            float[] gamma,
            int gammaOff,
            float[] beta,
            int betaOff,
            float[] y,
            int yOff,
            float eps,
            BiasShape s) {
        int channels = s.channels(), inner = s.inner();
        float[] scale = FACTORS.get(channels);
        for (int c = 0; c < channels; c++) {
            scale[c] = (float) (gamma[gammaOff + c] / Math.sqrt((double) var[varOff + c] + eps));
        }
        Parallel.forRange(s.outer() * channels, 3L * s.length(), (chunk, from, to) -> {
            for (int plane = from; plane < to; plane++) {
                int c = plane % channels, p = plane * inner;
                float mu = mean[meanOff + c], k = scale[c], b = beta[betaOff + c];
                FloatVector m = FloatVector.broadcast(S, mu), kv = FloatVector.broadcast(S, k);
                FloatVector bv = FloatVector.broadcast(S, b);
                int i = 0;
                for (; i + L <= inner; i += L) {
                    FloatVector.fromArray(S, x, xOff + p + i).sub(m).fma(kv, bv).intoArray(y, yOff + p + i);
                }
                for (; i < inner; i++) {
                    y[yOff + p + i] = Math.fma(x[xOff + p + i] - mu, k, b);
                }
            }
        });
    }

    /**
     * PyTorch's update of the running statistics in double, each rounded once to float, as its processor kernel
     * does; {@code tracked[0] += 1}.
     */
    static void runningUpdate(
            float[] mean,
            int meanOff,
            float[] var,
            int varOff,
            float[] runningMean,
            int rmOff,
            float[] runningVar,
            int rvOff,
            float[] tracked,
            int trackedOff,
            float momentum,
            long count,
            int channels) {
        double m = momentum, unbiased = (double) count / (count - 1);
        for (int c = 0; c < channels; c++) {
            runningMean[rmOff + c] = (float) ((1 - m) * runningMean[rmOff + c] + m * mean[meanOff + c]);
            runningVar[rvOff + c] = (float) ((1 - m) * runningVar[rvOff + c] + m * var[varOff + c] * unbiased);
        }
        tracked[trackedOff] += 1;
    }

    /**
     * {@code sumDy[c] = Σ dy} and {@code sumDyXhat[c] = Σ dy · (x − mean[c])} times {@code 1 / √(var[c] + eps)},
     * taken once at the end.
     */
    static void backwardReduce(
            float[] x,
            int xOff,
            float[] dy,
            int dyOff,
            float[] mean,
            int meanOff,
            float[] var,
            int varOff,
            float[] sumDy,
            int sumDyOff,
            float[] sumDyXhat,
            int sumDyXhatOff,
            float eps,
            BiasShape s) {
        int channels = s.channels(), inner = s.inner(), outer = s.outer(), stride = channels * inner;
        int block = planesPerBlock(inner), whole = inner / L * L;
        Parallel.forRange(channels, 5L * s.length(), (chunk, from, to) -> {
            for (int c = from; c < to; c++) {
                float mu = mean[meanOff + c];
                FloatVector m = FloatVector.broadcast(S, mu);
                double dySum = 0, dyDevSum = 0;
                for (int o0 = 0; o0 < outer; o0 += block) {
                    FloatVector g0 = FloatVector.zero(S), g1 = FloatVector.zero(S);
                    FloatVector d0 = FloatVector.zero(S), d1 = FloatVector.zero(S);
                    float gRest = 0, dRest = 0;
                    for (int o = o0, o1 = Math.min(outer, o0 + block); o < o1; o++) {
                        int p = o * stride + c * inner, i = 0;
                        for (; i + 2 * L <= whole; i += 2 * L) {
                            FloatVector u0 = FloatVector.fromArray(S, dy, dyOff + p + i);
                            FloatVector u1 = FloatVector.fromArray(S, dy, dyOff + p + i + L);
                            g0 = g0.add(u0);
                            g1 = g1.add(u1);
                            d0 = FloatVector.fromArray(S, x, xOff + p + i)
                                    .sub(m)
                                    .fma(u0, d0);
                            d1 = FloatVector.fromArray(S, x, xOff + p + i + L)
                                    .sub(m)
                                    .fma(u1, d1);
                        }
                        if (i < whole) {
                            FloatVector u = FloatVector.fromArray(S, dy, dyOff + p + i);
                            g0 = g0.add(u);
                            d0 = FloatVector.fromArray(S, x, xOff + p + i)
                                    .sub(m)
                                    .fma(u, d0);
                        }
                        for (i = whole; i < inner; i++) {
                            float u = dy[dyOff + p + i];
                            gRest += u;
                            dRest = Math.fma(x[xOff + p + i] - mu, u, dRest);
                        }
                    }
                    dySum += (double) Vectors.sumLanes(g0.add(g1)) + gRest;
                    dyDevSum += (double) Vectors.sumLanes(d0.add(d1)) + dRest;
                }
                sumDy[sumDyOff + c] = (float) dySum;
                sumDyXhat[sumDyXhatOff + c] = (float) (dyDevSum / Math.sqrt((double) var[varOff + c] + eps));
            }
        });
    }

    /**
     * {@code dx = gamma[c] / √(var[c] + eps) · (dy − sumDy[c] / count − (x − mean[c]) · sumDyXhat[c] / (count ·
     * √(var[c] + eps)))}: the three factors of each channel taken in double and rounded once.
     */
    static void backwardData(
            float[] x,
            int xOff,
            float[] dy,
            int dyOff,
            float[] mean,
            int meanOff,
            float[] var,
            int varOff,
            float[] gamma,
            int gammaOff,
            float[] sumDy,
            int sumDyOff,
            float[] sumDyXhat,
            int sumDyXhatOff,
            float[] dx,
            int dxOff,
            float eps,
            long count,
            BiasShape s) {
        int channels = s.channels(), inner = s.inner();
        // per channel: gamma · invStd, sumDy / count, sumDyXhat / count · invStd (x̂'s factor, its invStd included)
        float[] factors = FACTORS.get(3 * channels);
        for (int c = 0; c < channels; c++) {
            double invStd = 1 / Math.sqrt((double) var[varOff + c] + eps);
            factors[3 * c] = (float) (gamma[gammaOff + c] * invStd);
            factors[3 * c + 1] = (float) ((double) sumDy[sumDyOff + c] / count);
            factors[3 * c + 2] = (float) (sumDyXhat[sumDyXhatOff + c] / (double) count * invStd);
        }
        Parallel.forRange(s.outer() * channels, 8L * s.length(), (chunk, from, to) -> {
            for (int plane = from; plane < to; plane++) {
                int c = plane % channels, p = plane * inner;
                float mu = mean[meanOff + c], a = factors[3 * c], b = factors[3 * c + 1], k = factors[3 * c + 2];
                FloatVector m = FloatVector.broadcast(S, mu), av = FloatVector.broadcast(S, a);
                FloatVector bv = FloatVector.broadcast(S, b), kv = FloatVector.broadcast(S, k);
                int i = 0;
                for (; i + L <= inner; i += L) {
                    FloatVector d = FloatVector.fromArray(S, x, xOff + p + i).sub(m);
                    FloatVector.fromArray(S, dy, dyOff + p + i)
                            .sub(bv)
                            .sub(d.mul(kv))
                            .mul(av)
                            .intoArray(dx, dxOff + p + i);
                }
                for (; i < inner; i++) {
                    float d = x[xOff + p + i] - mu;
                    dx[dxOff + p + i] = (dy[dyOff + p + i] - b - d * k) * a;
                }
            }
        });
    }
}
