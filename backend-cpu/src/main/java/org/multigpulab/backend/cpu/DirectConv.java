package org.multigpulab.backend.cpu;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;
import org.multigpulab.device.ConvShape;

/**
 * Convolutions whose filters have few taps (conv1: one input channel, 3×3), computed straight from the tensors
 * with no im2col: an output row is cut into vectors of pixels, and each tap adds its weight times the input
 * row under it, shifted by the tap. Through im2col such a convolution is a matrix multiply whose sums are 9 long,
 * where packing the panel and copying the product out cost more than the multiply itself.
 *
 * <p>The vectors' lanes past the end of a row are masked off: they load nothing and store nothing. Sums run over
 * the taps in order (forward) and over images, rows and vectors in order (filter gradient), so a shape gives the
 * same bits every time on the same machine.
 */
final class DirectConv {

    private static final VectorSpecies<Float> S = Gemm.species();
    private static final int L = S.length();

    /**
     * Filters of at most this many taps (input channels × kernel height × kernel width) are computed here, and
     * any filter too narrow for the matrix multiply's column kernels ({@link Gemm#narrow}), whose filter gradient
     * would otherwise need a form of its own.
     */
    private static final int MAX_TAPS = 31;

    private final int outChannels;
    private final int outHeight;
    private final int outWidth;
    private final int width;
    private final int inputSample;
    private final int outputSample;
    /** Where tap {@code t = (c·kh + p)·kw + q} reads, relative to its output pixel's window corner. */
    private final int[] tapOffsets;
    /** Vectors per output row, the last one masked to the row's end. */
    private final int rowVectors;

    /** Whether {@code s} is computed here rather than as a matrix multiply over im2col panels. */
    static boolean suits(ConvShape s) {
        int taps = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        return taps <= MAX_TAPS || Gemm.narrow(taps);
    }

    DirectConv(ConvShape s) {
        this.outChannels = s.outChannels();
        this.outHeight = s.outHeight();
        this.outWidth = s.outWidth();
        this.width = s.width();
        this.inputSample = s.inChannels() * s.height() * s.width();
        this.outputSample = s.outChannels() * outHeight * outWidth;
        this.tapOffsets = new int[s.inChannels() * s.kernelHeight() * s.kernelWidth()];
        int t = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++) {
                    tapOffsets[t++] = (c * s.height() + p) * s.width() + q;
                }
            }
        }
        this.rowVectors = (outWidth + L - 1) / L;
    }

    /** Filter taps: the length of each output channel's weights. */
    int taps() {
        return tapOffsets.length;
    }

    /** y[n, o, i, j] = Σ_t w[o, t] · x[n, c_t, i + p_t, j + q_t] for the images {@code [from, to)}. */
    void forward(float[] x, int xOff, float[] w, int wOff, float[] y, int yOff, int from, int to) {
        int taps = tapOffsets.length, pixels = outHeight * outWidth;
        for (int n = from; n < to; n++) {
            for (int i = 0; i < outHeight; i++) {
                for (int v = 0; v < rowVectors; v++) {
                    // made here, not kept in an array: a mask read from an array is not compiled to vector instructions
                    VectorMask<Float> m = S.indexInRange(v * L, outWidth);
                    int corner = xOff + n * inputSample + i * width + v * L;
                    int out = yOff + n * outputSample + i * outWidth + v * L;
                    int o = 0;
                    for (; o + 4 <= outChannels; o += 4) {
                        int w0 = wOff + o * taps;
                        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
                        for (int t = 0; t < taps; t++) {
                            FloatVector in = FloatVector.fromArray(S, x, corner + tapOffsets[t], m);
                            a0 = in.fma(FloatVector.broadcast(S, w[w0 + t]), a0);
                            a1 = in.fma(FloatVector.broadcast(S, w[w0 + taps + t]), a1);
                            a2 = in.fma(FloatVector.broadcast(S, w[w0 + 2 * taps + t]), a2);
                            a3 = in.fma(FloatVector.broadcast(S, w[w0 + 3 * taps + t]), a3);
                        }
                        a0.intoArray(y, out + o * pixels, m);
                        a1.intoArray(y, out + (o + 1) * pixels, m);
                        a2.intoArray(y, out + (o + 2) * pixels, m);
                        a3.intoArray(y, out + (o + 3) * pixels, m);
                    }
                    for (; o < outChannels; o++) {
                        int w0 = wOff + o * taps;
                        FloatVector a = FloatVector.zero(S);
                        for (int t = 0; t < taps; t++) {
                            a = FloatVector.fromArray(S, x, corner + tapOffsets[t], m)
                                    .fma(FloatVector.broadcast(S, w[w0 + t]), a);
                        }
                        a.intoArray(y, out + o * pixels, m);
                    }
                }
            }
        }
    }

    /** Floats of one chunk's partial filter gradient: a vector of lane sums per weight. */
    int partialLength() {
        return outChannels * tapOffsets.length * L;
    }

    /**
     * {@code lanes[at + (o·taps + t)·L + l]} += the lane-l part of Σ dy[n, o, i, j] · x[n, c_t, i + p_t, j + q_t]
     * over the images {@code [from, to)}; {@link #sumLanes} turns such vectors into the gradient.
     */
    void addFilterGradient(float[] x, int xOff, float[] dy, int dyOff, float[] lanes, int at, int from, int to) {
        int taps = tapOffsets.length, pixels = outHeight * outWidth;
        for (int n = from; n < to; n++) {
            int image = xOff + n * inputSample;
            int o = 0;
            for (; o + 2 <= outChannels; o += 2) {
                int gradient = dyOff + n * outputSample + o * pixels;
                int sums = at + o * taps * L;
                int t = 0;
                for (; t + 4 <= taps; t += 4) {
                    fourTapsTwoChannels(x, image, t, dy, gradient, pixels, lanes, sums + t * L, taps * L);
                }
                for (; t < taps; t++) {
                    oneTap(x, image + tapOffsets[t], dy, gradient, lanes, sums + t * L);
                    oneTap(x, image + tapOffsets[t], dy, gradient + pixels, lanes, sums + (taps + t) * L);
                }
            }
            for (; o < outChannels; o++) {
                int gradient = dyOff + n * outputSample + o * pixels;
                for (int t = 0; t < taps; t++) {
                    oneTap(x, image + tapOffsets[t], dy, gradient, lanes, at + (o * taps + t) * L);
                }
            }
        }
    }

    /*
     * The sums over an image run over its row vectors in one loop, row and vector counted alongside: with a loop
     * per row inside a loop over rows, the accumulators were not kept in registers (3 times slower).
     */

    /**
     * The image's sums for taps t to t + 3 of two output channels, whose gradients are {@code next} apart, added
     * to the four vectors at {@code sums} and the four at {@code sums + nextSums}: eight sums from four loads of x
     * and two of dy.
     */
    private void fourTapsTwoChannels(
            float[] x, int image, int t, float[] dy, int gradient, int next, float[] lanes, int sums, int nextSums) {
        int x0 = image + tapOffsets[t], x1 = image + tapOffsets[t + 1];
        int x2 = image + tapOffsets[t + 2], x3 = image + tapOffsets[t + 3];
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        // v: where the vector starts in its row
        int pixel = 0, corner = 0, v = 0;
        for (int k = 0; k < outHeight * rowVectors; k++) {
            VectorMask<Float> m = S.indexInRange(v, outWidth);
            FloatVector g = FloatVector.fromArray(S, dy, gradient + pixel + v, m);
            FloatVector h = FloatVector.fromArray(S, dy, gradient + next + pixel + v, m);
            FloatVector in = FloatVector.fromArray(S, x, x0 + corner + v, m);
            a0 = in.fma(g, a0);
            b0 = in.fma(h, b0);
            in = FloatVector.fromArray(S, x, x1 + corner + v, m);
            a1 = in.fma(g, a1);
            b1 = in.fma(h, b1);
            in = FloatVector.fromArray(S, x, x2 + corner + v, m);
            a2 = in.fma(g, a2);
            b2 = in.fma(h, b2);
            in = FloatVector.fromArray(S, x, x3 + corner + v, m);
            a3 = in.fma(g, a3);
            b3 = in.fma(h, b3);
            v += L;
            if (v >= outWidth) {
                v = 0;
                pixel += outWidth;
                corner += width;
            }
        }
        addInto(lanes, sums, a0);
        addInto(lanes, sums + L, a1);
        addInto(lanes, sums + 2 * L, a2);
        addInto(lanes, sums + 3 * L, a3);
        addInto(lanes, sums + nextSums, b0);
        addInto(lanes, sums + nextSums + L, b1);
        addInto(lanes, sums + nextSums + 2 * L, b2);
        addInto(lanes, sums + nextSums + 3 * L, b3);
    }

    /** The image's sum for one tap (reading x from {@code tap}) of one output channel, added at {@code sums}. */
    private void oneTap(float[] x, int tap, float[] dy, int gradient, float[] lanes, int sums) {
        FloatVector a = FloatVector.zero(S);
        // v: where the vector starts in its row
        int pixel = 0, corner = 0, v = 0;
        for (int k = 0; k < outHeight * rowVectors; k++) {
            VectorMask<Float> m = S.indexInRange(v, outWidth);
            a = FloatVector.fromArray(S, x, tap + corner + v, m)
                    .fma(FloatVector.fromArray(S, dy, gradient + pixel + v, m), a);
            v += L;
            if (v >= outWidth) {
                v = 0;
                pixel += outWidth;
                corner += width;
            }
        }
        addInto(lanes, sums, a);
    }

    private static void addInto(float[] lanes, int at, FloatVector v) {
        FloatVector.fromArray(S, lanes, at).add(v).intoArray(lanes, at);
    }

    /** {@code dw[o, t]} = the lanes of every chunk's vector for weight (o, t), chunk by chunk, first lane to last. */
    void sumLanes(float[] lanes, int chunks, float[] dw, int dwOff) {
        int weights = outChannels * tapOffsets.length, partial = weights * L;
        for (int k = 0; k < weights; k++) {
            float sum = 0f;
            for (int c = 0; c < chunks; c++) {
                for (int l = 0; l < L; l++) {
                    sum += lanes[c * partial + k * L + l];
                }
            }
            dw[dwOff + k] = sum;
        }
    }
}
