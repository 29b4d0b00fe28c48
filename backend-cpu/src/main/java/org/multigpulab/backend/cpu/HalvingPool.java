package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * LeNet's pooling, 2×2 windows at stride 2, one plane at a time and half a vector of outputs per step, a row's
 * last outputs in one more step under masks: the general loops spend more on their four nested counters than on
 * the four additions, and a scalar loop does one output per step. Each sum is added in the general loops' order
 * (top left, top right, bottom left, bottom right), so both paths give the same bits.
 */
final class HalvingPool {

    private static final VectorSpecies<Float> S = Gemm.species();
    /** Outputs per vector step: an input vector holds two per output. */
    private static final int HALF = S.length() / 2;

    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(S, i -> Math.min(2 * i, S.length() - 1));
    private static final VectorShuffle<Float> ODD = VectorShuffle.fromOp(S, i -> Math.min(2 * i + 1, S.length() - 1));
    private static final VectorShuffle<Float> TWICE = VectorShuffle.fromOp(S, i -> i / 2);
    private static final VectorMask<Float> LOWER = S.indexInRange(0, HALF);

    private HalvingPool() {}

    /** y[out + i·ow + j] = the mean of x's 2×2 window at row 2i, column 2j of a plane {@code width} wide. */
    static void forward(float[] x, int in, int width, float[] y, int out, int oh, int ow) {
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            int j = 0;
            for (; 2 * j + S.length() <= width; j += HALF) {
                FloatVector upper = FloatVector.fromArray(S, x, top + 2 * j);
                FloatVector lower = FloatVector.fromArray(S, x, bottom + 2 * j);
                means(upper, lower).intoArray(y, row + j, LOWER);
            }
            if (ow - j > 1) {
                // the row's last outputs in one step under masks (conv1's last 5 of 13 with 512-bit vectors, all 4
                // of conv2's); a single one is cheaper alone
                VectorMask<Float> inputs = S.indexInRange(2 * j, 2 * ow);
                FloatVector upper = FloatVector.fromArray(S, x, top + 2 * j, inputs);
                FloatVector lower = FloatVector.fromArray(S, x, bottom + 2 * j, inputs);
                means(upper, lower).intoArray(y, row + j, S.indexInRange(j, ow));
                j = ow;
            }
            for (; j < ow; j++) {
                y[row + j] =
                        (((x[top + 2 * j] + x[top + 2 * j + 1]) + x[bottom + 2 * j]) + x[bottom + 2 * j + 1]) * 0.25f;
            }
        }
    }

    /**
     * The means of the 2×2 windows whose rows are {@code upper} and {@code lower}, in the lower half of a vector,
     * each summed top left, top right, bottom left, bottom right.
     */
    private static FloatVector means(FloatVector upper, FloatVector lower) {
        return upper.rearrange(EVEN)
                .add(upper.rearrange(ODD))
                .add(lower.rearrange(EVEN))
                .add(lower.rearrange(ODD))
                .mul(0.25f);
    }

    /**
     * The gradient of {@link #forward}: each output's gradient, a quarter of it, on the four inputs it averaged.
     * Writes only those inputs; a plane whose last row or column no window covers keeps what it had there.
     */
    static void backward(float[] dy, int out, int oh, int ow, float[] dx, int in, int width) {
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            int j = 0;
            for (; j + HALF <= ow; j += HALF) {
                FloatVector g =
                        FloatVector.fromArray(S, dy, row + j, LOWER).mul(0.25f).rearrange(TWICE);
                g.intoArray(dx, top + 2 * j);
                g.intoArray(dx, bottom + 2 * j);
            }
            if (ow - j > 1) {
                FloatVector g = FloatVector.fromArray(S, dy, row + j, S.indexInRange(j, ow))
                        .mul(0.25f)
                        .rearrange(TWICE);
                VectorMask<Float> inputs = S.indexInRange(2 * j, 2 * ow);
                g.intoArray(dx, top + 2 * j, inputs);
                g.intoArray(dx, bottom + 2 * j, inputs);
                j = ow;
            }
            for (; j < ow; j++) {
                float g = dy[row + j] * 0.25f;
                dx[top + 2 * j] = g;
                dx[top + 2 * j + 1] = g;
                dx[bottom + 2 * j] = g;
                dx[bottom + 2 * j + 1] = g;
            }
        }
    }
}
