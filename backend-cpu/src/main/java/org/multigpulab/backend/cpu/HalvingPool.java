package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * LeNet's pooling, 2×2 windows at stride 2, one plane at a time and a vector of outputs per step: the general
 * loops spend more on their four nested counters than on the four additions, and a scalar loop does one output per
 * step. A step reads two vectors of each of its two input rows, adds each lane's right neighbour and the row
 * below to it, and gathers the sums' even lanes into one vector. A row's last step ends where the row ends,
 * overlapping the step before it when the row is not a whole number of steps (conv1's 13 outputs: steps at 0 and 5
 * with 256-bit vectors), so it writes some values a second time, the same ones, rather than finish the row under
 * masks or one by one. Rows of half a step (conv2's 4 outputs with 256-bit vectors) go two to a step, a vector
 * from each of four input rows. Only other rows shorter than a step (conv1's 13 outputs and conv2's 4 with 512-bit
 * vectors) take masks, in methods of their own: a method that takes both masked and unmasked steps, as a training
 * step's two layers would make it, has its vectors boxed by C2. Each sum is added in the general loops' order (top
 * left, top right, bottom left, bottom right), so every path gives the same bits.
 *
 * <p>No method here hands a vector to another of ours: each step is written out whole, with the Vector API's own
 * methods alone, which C2 always inlines. A helper of ours C2 may leave out of a method it compiles ("low call site
 * frequency", "already compiled into a medium method", as with 8 logical GPUs), and then every vector the helper
 * takes for the rest of the run is boxed and blended by the Vector API's Java fallback.
 *
 * <p>Only vectors of the one species every kernel uses ({@link Gemm#species}), never half-width ones: the Vector
 * API's methods are shared by every shape, and where their profiles have seen a second shape's vectors C2 compiles
 * the other kernels' calls for both ({@link Vectors}).
 */
final class HalvingPool {

    private static final VectorSpecies<Float> S = Gemm.species();
    /** Outputs per vector step: two input vectors of each row hold two inputs per output. */
    private static final int L = S.length();

    /** Each lane's right neighbour, so that a sum of two vectors holds each window's row sums in its even lanes. */
    private static final VectorShuffle<Float> NEXT = VectorShuffle.fromOp(S, i -> Math.min(i + 1, L - 1));
    /** The even lanes, then the even lanes again: with {@link #UPPER_HALF}, two vectors' even lanes in one. */
    private static final VectorShuffle<Float> EVENS = VectorShuffle.fromOp(S, i -> 2 * i % L);
    /** Lanes L/2 to L − 1: lane i is in range where i − L/2 is in [0, L/2). */
    private static final VectorMask<Float> UPPER_HALF = S.indexInRange(-L / 2, L / 2);
    /** Each of the first half's lanes twice, then each of the second half's. */
    private static final VectorShuffle<Float> LOWER_TWICE = VectorShuffle.fromOp(S, i -> i / 2);

    private static final VectorShuffle<Float> UPPER_TWICE = VectorShuffle.fromOp(S, i -> (L + i) / 2);

    private HalvingPool() {}

    /**
     * y[out + i·ow + j] = the mean of x's 2×2 window at row 2i, column 2j of a plane {@code width} wide, where
     * values at or below {@code floor} count as 0 ({@link #floored(float, float)}).
     */
    static void forward(float[] x, int in, int width, float floor, float[] y, int out, int oh, int ow) {
        int rows = rowsPerStep(oh, ow);
        if (rows == 0) {
            forwardShortRows(x, in, width, floor, y, out, oh, ow);
            return;
        }
        int span = rows * ow, next = rows == 1 ? L : 2 * width;
        int i = 0;
        for (; i + rows <= oh; i += rows) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < span; j += L) {
                int at = stepStart(j, span);
                FloatVector upper = FloatVector.fromArray(S, x, top + 2 * at);
                FloatVector upperNext = FloatVector.fromArray(S, x, top + 2 * at + next);
                FloatVector lower = FloatVector.fromArray(S, x, bottom + 2 * at);
                FloatVector lowerNext = FloatVector.fromArray(S, x, bottom + 2 * at + next);
                upper = upper.blend(0f, upper.compare(VectorOperators.LE, floor));
                upperNext = upperNext.blend(0f, upperNext.compare(VectorOperators.LE, floor));
                lower = lower.blend(0f, lower.compare(VectorOperators.LE, floor));
                lowerNext = lowerNext.blend(0f, lowerNext.compare(VectorOperators.LE, floor));
                FloatVector sums = upper.add(upper.rearrange(NEXT)).add(lower).add(lower.rearrange(NEXT));
                FloatVector sumsNext =
                        upperNext.add(upperNext.rearrange(NEXT)).add(lowerNext).add(lowerNext.rearrange(NEXT));
                sums.rearrange(EVENS)
                        .blend(sumsNext.rearrange(EVENS), UPPER_HALF)
                        .mul(0.25f)
                        .intoArray(y, row + at);
            }
        }
        if (i < oh) {
            forwardShortRows(x, in + 2 * i * width, width, floor, y, out + i * ow, oh - i, ow);
        }
    }

    /**
     * {@link #forward} of rows shorter than a step: each row in one step under masks, its second input vector
     * (where a row has more inputs than one vector holds) under a mask of its own.
     */
    private static void forwardShortRows(
            float[] x, int in, int width, float floor, float[] y, int out, int oh, int ow) {
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow),
                nextInputs = S.indexInRange(L, 2 * ow),
                outputs = S.indexInRange(0, ow);
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width;
            FloatVector upper = FloatVector.fromArray(S, x, top, inputs);
            FloatVector upperNext = FloatVector.fromArray(S, x, top + L, nextInputs);
            FloatVector lower = FloatVector.fromArray(S, x, bottom, inputs);
            FloatVector lowerNext = FloatVector.fromArray(S, x, bottom + L, nextInputs);
            upper = upper.blend(0f, upper.compare(VectorOperators.LE, floor));
            upperNext = upperNext.blend(0f, upperNext.compare(VectorOperators.LE, floor));
            lower = lower.blend(0f, lower.compare(VectorOperators.LE, floor));
            lowerNext = lowerNext.blend(0f, lowerNext.compare(VectorOperators.LE, floor));
            FloatVector sums = upper.add(upper.rearrange(NEXT)).add(lower).add(lower.rearrange(NEXT));
            FloatVector sumsNext =
                    upperNext.add(upperNext.rearrange(NEXT)).add(lowerNext).add(lowerNext.rearrange(NEXT));
            sums.rearrange(EVENS)
                    .blend(sumsNext.rearrange(EVENS), UPPER_HALF)
                    .mul(0.25f)
                    .intoArray(y, out + i * ow, outputs);
        }
    }

    /**
     * Output rows per step of the unmasked loops, 0 where a plane takes the masked ones. A row of at least a
     * vector of outputs takes one row a step, the step's second input vector of a row right after its first, and
     * the steps along the row. A row of half a vector (conv2's 4 outputs at 256 bits) takes two rows a step: the
     * second row's inputs are the second input vectors, two input rows below the first's, and a step's outputs
     * are the two rows' side by side, as they lie in {@code y}. That needs no masks, which under AVX2 are stores
     * of several instructions each; an odd last row still takes them, as does any other row shorter than a vector.
     */
    private static int rowsPerStep(int oh, int ow) {
        if (ow >= L) {
            return 1;
        }
        return 2 * ow == L && oh >= 2 ? 2 : 0;
    }

    /**
     * Where the step for output {@code j} of a row of {@code ow} starts: at {@code j}, or, where a step from there
     * would run past the row's end, one step before the end, over outputs the step before it wrote.
     */
    private static int stepStart(int j, int ow) {
        return Math.min(j, ow - L);
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
        int rows = rowsPerStep(oh, ow);
        if (rows == 0) {
            backwardShortRows(dy, out, oh, ow, dx, in, width);
            return;
        }
        int span = rows * ow, next = rows == 1 ? L : 2 * width;
        int i = 0;
        for (; i + rows <= oh; i += rows) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < span; j += L) {
                int at = stepStart(j, span);
                FloatVector g = FloatVector.fromArray(S, dy, row + at).mul(0.25f);
                FloatVector first = g.rearrange(LOWER_TWICE), second = g.rearrange(UPPER_TWICE);
                first.intoArray(dx, top + 2 * at);
                second.intoArray(dx, top + 2 * at + next);
                first.intoArray(dx, bottom + 2 * at);
                second.intoArray(dx, bottom + 2 * at + next);
            }
        }
        if (i < oh) {
            backwardShortRows(dy, out + i * ow, oh - i, ow, dx, in + 2 * i * width, width);
        }
    }

    /**
     * {@link #backward} of rows shorter than a step: each row in one step under masks, the second vector of
     * inputs stored only where a row has more inputs than one vector holds.
     */
    private static void backwardShortRows(float[] dy, int out, int oh, int ow, float[] dx, int in, int width) {
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow),
                nextInputs = S.indexInRange(L, 2 * ow),
                outputs = S.indexInRange(0, ow);
        boolean twoVectors = 2 * ow > L;
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width;
            FloatVector g = FloatVector.fromArray(S, dy, out + i * ow, outputs).mul(0.25f);
            FloatVector first = g.rearrange(LOWER_TWICE), second = g.rearrange(UPPER_TWICE);
            first.intoArray(dx, top, inputs);
            first.intoArray(dx, bottom, inputs);
            if (twoVectors) {
                second.intoArray(dx, top + L, nextInputs);
                second.intoArray(dx, bottom + L, nextInputs);
            }
        }
    }

    /**
     * {@link #backward} where {@code x > 0} (a plane at {@code xIn}, laid out as {@code dx}'s), zero elsewhere: the
     * gradient of the ReLU before the pooling too. Its own loop rather than a test for {@code x} in
     * {@link #backward}'s, which would slow the pooling alone as well (docs/performance-log.md).
     */
    static void backwardWherePositive(
            float[] dy, int out, int oh, int ow, float[] x, int xIn, float[] dx, int in, int width) {
        int rows = rowsPerStep(oh, ow);
        if (rows == 0) {
            backwardWherePositiveShortRows(dy, out, oh, ow, x, xIn, dx, in, width);
            return;
        }
        int span = rows * ow, next = rows == 1 ? L : 2 * width;
        FloatVector zero = FloatVector.zero(S);
        int i = 0;
        for (; i + rows <= oh; i += rows) {
            int top = 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < span; j += L) {
                int at = stepStart(j, span);
                FloatVector g = FloatVector.fromArray(S, dy, row + at).mul(0.25f);
                FloatVector first = g.rearrange(LOWER_TWICE), second = g.rearrange(UPPER_TWICE);
                int t = top + 2 * at, b = bottom + 2 * at;
                zero.blend(first, FloatVector.fromArray(S, x, xIn + t).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + t);
                zero.blend(second, FloatVector.fromArray(S, x, xIn + t + next).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + t + next);
                zero.blend(first, FloatVector.fromArray(S, x, xIn + b).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + b);
                zero.blend(second, FloatVector.fromArray(S, x, xIn + b + next).compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + b + next);
            }
        }
        if (i < oh) {
            int skip = 2 * i * width;
            backwardWherePositiveShortRows(dy, out + i * ow, oh - i, ow, x, xIn + skip, dx, in + skip, width);
        }
    }

    /** {@link #backwardWherePositive} of rows shorter than a step, as {@link #backwardShortRows}. */
    private static void backwardWherePositiveShortRows(
            float[] dy, int out, int oh, int ow, float[] x, int xIn, float[] dx, int in, int width) {
        FloatVector zero = FloatVector.zero(S);
        VectorMask<Float> inputs = S.indexInRange(0, 2 * ow),
                nextInputs = S.indexInRange(L, 2 * ow),
                outputs = S.indexInRange(0, ow);
        boolean twoVectors = 2 * ow > L;
        for (int i = 0; i < oh; i++) {
            int t = 2 * i * width, b = t + width;
            FloatVector g = FloatVector.fromArray(S, dy, out + i * ow, outputs).mul(0.25f);
            FloatVector first = g.rearrange(LOWER_TWICE), second = g.rearrange(UPPER_TWICE);
            zero.blend(first, FloatVector.fromArray(S, x, xIn + t, inputs).compare(VectorOperators.GT, 0f))
                    .intoArray(dx, in + t, inputs);
            zero.blend(first, FloatVector.fromArray(S, x, xIn + b, inputs).compare(VectorOperators.GT, 0f))
                    .intoArray(dx, in + b, inputs);
            if (twoVectors) {
                zero.blend(
                                second,
                                FloatVector.fromArray(S, x, xIn + t + L, nextInputs)
                                        .compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + t + L, nextInputs);
                zero.blend(
                                second,
                                FloatVector.fromArray(S, x, xIn + b + L, nextInputs)
                                        .compare(VectorOperators.GT, 0f))
                        .intoArray(dx, in + b + L, nextInputs);
            }
        }
    }
}
