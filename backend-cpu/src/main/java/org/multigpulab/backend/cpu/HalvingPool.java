package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * LeNet's pooling, 2×2 windows at stride 2, one plane at a time and half a vector of outputs per step: the general
 * loops spend more on their four nested counters than on the four additions, and a scalar loop does one output per
 * step. A row's last step ends where the row ends, overlapping the step before it when the row is not a whole
 * number of steps (conv1's 13 outputs: steps at 0, 4, 8 and 9 with 256-bit vectors), so it writes some values a
 * second time, the same ones, rather than finish the row under masks or one by one; only a row shorter than a step
 * (conv2's 4 outputs with 512-bit vectors) takes masks, in methods of their own: in the same method as the unmasked
 * steps, where conv1's rows took those and conv2's the masked ones, conv2's ReLU and pooling forward took 2.4 times as
 * long among a training step's kernels on AVX-512. Each sum is added in the general loops' order (top left, top
 * right, bottom left, bottom right), so both paths give the same bits.
 *
 * <p>No method here hands a vector to another of ours: each step is written out whole, with the Vector API's own
 * methods alone, which C2 always inlines. With 8 logical GPUs C2 compiled {@link #forward} with the short rows
 * inlined before their method had a profile, left its small helpers for the ReLU and the means out ("low call site
 * frequency", "already compiled into a medium method"), and for the rest of the run every vector they took was
 * boxed and blended by the Vector API's Java fallback: about a twentieth of the run's samples.
 */
final class HalvingPool {

    private static final VectorSpecies<Float> S = Gemm.species();
    /**
     * Vectors of half the width, for a step's outputs: stored (and their gradients read) as a plain half vector
     * rather than the whole one under a mask, which on AMD's Zen 3 with AVX2 made the pooling take 0.67 (conv2)
     * and 0.78 (conv1) of the time; reading the gradients so, 0.92 of the time (ReLU and pooling backward).
     */
    private static final VectorSpecies<Float> HALVES =
            VectorSpecies.of(float.class, VectorShape.forBitSize(S.vectorBitSize() / 2));
    /** Outputs per vector step, one half vector of them: an input vector holds two per output. */
    private static final int HALF = HALVES.length();

    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(S, i -> Math.min(2 * i, S.length() - 1));
    private static final VectorShuffle<Float> ODD = VectorShuffle.fromOp(S, i -> Math.min(2 * i + 1, S.length() - 1));
    private static final VectorShuffle<Float> TWICE = VectorShuffle.fromOp(S, i -> i / 2);

    private HalvingPool() {}

    /**
     * y[out + i·ow + j] = the mean of x's 2×2 window at row 2i, column 2j of a plane {@code width} wide, where
     * values at or below {@code floor} count as 0 ({@link #floored(float, float)}).
     */
    static void forward(float[] x, int in, int width, float floor, float[] y, int out, int oh, int ow) {
        if (ow < HALF) {
            forwardShortRows(x, in, width, floor, y, out, oh, ow);
            return;
        }
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < ow; j += HALF) {
                int at = stepStart(j, ow);
                FloatVector upper = FloatVector.fromArray(S, x, top + 2 * at);
                FloatVector lower = FloatVector.fromArray(S, x, bottom + 2 * at);
                upper = upper.blend(0f, upper.compare(VectorOperators.LE, floor));
                lower = lower.blend(0f, lower.compare(VectorOperators.LE, floor));
                upper.rearrange(EVEN)
                        .add(upper.rearrange(ODD))
                        .add(lower.rearrange(EVEN))
                        .add(lower.rearrange(ODD))
                        .mul(0.25f)
                        .reinterpretShape(HALVES, 0)
                        .reinterpretAsFloats()
                        .intoArray(y, row + at);
            }
        }
    }

    /** {@link #forward} of rows shorter than a step: each row in one step under masks. */
    private static void forwardShortRows(
            float[] x, int in, int width, float floor, float[] y, int out, int oh, int ow) {
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow), outputs = S.indexInRange(0, ow);
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width;
            FloatVector upper = FloatVector.fromArray(S, x, top, inputs);
            FloatVector lower = FloatVector.fromArray(S, x, bottom, inputs);
            upper = upper.blend(0f, upper.compare(VectorOperators.LE, floor));
            lower = lower.blend(0f, lower.compare(VectorOperators.LE, floor));
            upper.rearrange(EVEN)
                    .add(upper.rearrange(ODD))
                    .add(lower.rearrange(EVEN))
                    .add(lower.rearrange(ODD))
                    .mul(0.25f)
                    .intoArray(y, out + i * ow, outputs);
        }
    }

    /**
     * Where the step for output {@code j} of a row of {@code ow} starts: at {@code j}, or, where a step from there
     * would run past the row's end, one step before the end, over outputs the step before it wrote.
     */
    private static int stepStart(int j, int ow) {
        return Math.min(j, ow - HALF);
    }

    /**
     * {@code v}, or 0 where it is at or below {@code floor}: with a floor of NaN, which no value is at or below,
     * {@code v} as it is; with 0, its ReLU as {@link Vectors#relu} makes it (a NaN stays, −0 becomes 0). The vector
     * steps do the same with a compare and a blend: Java's {@code max}, which must order −0 below 0, takes several
     * instructions more.
     */
    static float floored(float v, float floor) {
        return v <= floor ? 0f : v;
    }

    /**
     * The gradient of {@link #forward}: each output's gradient, a quarter of it, on the four inputs it averaged.
     * Writes only those inputs; a plane whose last row or column no window covers keeps what it had there.
     */
    static void backward(float[] dy, int out, int oh, int ow, float[] dx, int in, int width) {
        if (ow < HALF) {
            backwardShortRows(dy, out, oh, ow, dx, in, width);
            return;
        }
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < ow; j += HALF) {
                int at = stepStart(j, ow);
                FloatVector g = FloatVector.fromArray(HALVES, dy, row + at)
                        .reinterpretShape(S, 0)
                        .reinterpretAsFloats()
                        .mul(0.25f)
                        .rearrange(TWICE);
                g.intoArray(dx, top + 2 * at);
                g.intoArray(dx, bottom + 2 * at);
            }
        }
    }

    /** {@link #backward} of rows shorter than a step: each row in one step under masks. */
    private static void backwardShortRows(float[] dy, int out, int oh, int ow, float[] dx, int in, int width) {
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow), outputs = S.indexInRange(0, ow);
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width;
            FloatVector g = FloatVector.fromArray(S, dy, out + i * ow, outputs)
                    .mul(0.25f)
                    .rearrange(TWICE);
            g.intoArray(dx, top, inputs);
            g.intoArray(dx, bottom, inputs);
        }
    }

    /**
     * {@link #backward} where {@code x > 0} (a plane at {@code xIn}, laid out as {@code dx}'s), zero elsewhere: the
     * gradient of the ReLU before the pooling too. Its own loop rather than a test for {@code x} in
     * {@link #backward}'s: that made the pooling alone 2.5 times slower (docs/performance-log.md).
     */
    static void backwardWherePositive(
            float[] dy, int out, int oh, int ow, float[] x, int xIn, float[] dx, int in, int width) {
        if (ow < HALF) {
            backwardWherePositiveShortRows(dy, out, oh, ow, x, xIn, dx, in, width);
            return;
        }
        FloatVector zero = FloatVector.zero(S);
        for (int i = 0; i < oh; i++) {
            int top = 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < ow; j += HALF) {
                int at = stepStart(j, ow);
                FloatVector g = FloatVector.fromArray(HALVES, dy, row + at)
                        .reinterpretShape(S, 0)
                        .reinterpretAsFloats()
                        .mul(0.25f)
                        .rearrange(TWICE);
                int t = top + 2 * at, b = bottom + 2 * at;
                zero.blend(g, FloatVector.fromArray(S, x, xIn + t).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + t);
                zero.blend(g, FloatVector.fromArray(S, x, xIn + b).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + b);
            }
        }
    }

    /** {@link #backwardWherePositive} of rows shorter than a step: each row in one step under masks. */
    private static void backwardWherePositiveShortRows(
            float[] dy, int out, int oh, int ow, float[] x, int xIn, float[] dx, int in, int width) {
        FloatVector zero = FloatVector.zero(S);
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow), outputs = S.indexInRange(0, ow);
        for (int i = 0; i < oh; i++) {
            int t = 2 * i * width, b = t + width;
            FloatVector g = FloatVector.fromArray(S, dy, out + i * ow, outputs)
                    .mul(0.25f)
                    .rearrange(TWICE);
            zero.blend(g, FloatVector.fromArray(S, x, xIn + t, inputs).compare(VectorOperators.GT, 0f))
                    .intoArray(dx, in + t, inputs);
            zero.blend(g, FloatVector.fromArray(S, x, xIn + b, inputs).compare(VectorOperators.GT, 0f))
                    .intoArray(dx, in + b, inputs);
        }
    }
}
