package org.multigpulab.backend.cpu;

import java.util.Arrays;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.PoolShape;

/**
 * A convolution with its bias, ReLU and average pooling, one image at a time in arrays that stay in a core's
 * cache, the convolution's output and its gradient never stored: {@link CpuKernels}' fused first layer.
 *
 * <p>The convolution is computed over whole rows of the input: output pixel (i, j) is column {@code i·W + j} of
 * rows as wide as the input's, {@code W}; the last {@code Kw − 1} columns of each row are not pixels of the
 * output (their windows run across the row's end) and nothing reads them. Then each tap's row of im2col(x) is
 * one stretch of the image, copied whole, where the panels of {@link ConvPanels} copy each output row's stretch
 * on its own: 26 floats at a time for conv1, 60,000 short copies a batch of 256, and 133,000 more to store the
 * output. A last row of ones makes the bias the multiply's last term: each output is the convolution's sum, the
 * same terms in the same order, with the bias added last and rounded once, the bits that storing the product
 * with its bias gives.
 */
final class FusedFirstLayer {

    private final ConvShape conv;
    private final PoolShape pool;
    /** The filter's taps, C·Kh·Kw; the multiply's depth is one more, the bias. */
    private final int taps;
    /**
     * Where the panels start in their arrays, on a cache line where the JVM allows it ({@link Scratch#LINE_START});
     * their rows are whole lines long, so that every row starts on one.
     */
    private static final int AT = Scratch.LINE_START;

    /**
     * Columns of each row of the panels: the output's rows at the input's width, rounded up to whole vectors and
     * cache lines.
     */
    private final int columns;
    /** The columns that hold output rows: up to the last output pixel; the rest stay zero. */
    private final int used;

    /** Where each tap's stretch starts in an image: {@code (c·H + p)·W + q}. */
    private final int[] tapOffsets;

    /**
     * Whether whole rows suit convolution {@code c}: they multiply {@code Kw − 1} columns a row that are no output
     * pixel, 2 of 28 for LeNet's first layer. Its second wastes 4 of 13 (44 % more multiplies), more than the fused
     * pass saves, so it goes through panels and is pooled after.
     */
    static boolean suits(ConvShape c) {
        return 8 * (c.kernelWidth() - 1) <= c.width();
    }

    /** The layer of shape {@code s}, whose convolution's taps {@code panels} knows. */
    FusedFirstLayer(ConvPoolShape s, ConvPanels panels) {
        this.conv = s.conv();
        this.pool = s.pool();
        this.taps = conv.inChannels() * conv.kernelHeight() * conv.kernelWidth();
        this.columns = Gemm.roundUpTo(Gemm.roundUpToVectors(conv.outHeight() * conv.width()), Scratch.LINE_FLOATS);
        this.used = (conv.outHeight() - 1) * conv.width() + conv.outWidth();
        this.tapOffsets = panels.tapOffsets(new int[taps], taps, 0);
    }

    /**
     * Floats of the packed image ({@code taps + 1} rows) and of the output or its gradient (a row a channel), from
     * the array's start: the panels begin {@link #AT} in.
     */
    int panelLength() {
        return AT + (taps + 1) * columns;
    }

    int outputLength() {
        return AT + conv.outChannels() * columns;
    }

    /** The filter's and bias's gradients: dw's rows, each with db's element last. */
    int gradientLength() {
        return conv.outChannels() * (taps + 1);
    }

    /** Floats of {@link #addGradients}' sums: each of {@link #gradientLength} with its vector's lanes apart. */
    int lanesLength() {
        return gradientLength() * Gemm.species().length();
    }

    /** [w | b]: the filter with the bias as its last column, the multiply's left operand. */
    void filterWithBias(float[] w, int wOff, float[] b, int bOff, float[] into) {
        for (int o = 0; o < conv.outChannels(); o++) {
            System.arraycopy(w, wOff + o * taps, into, o * (taps + 1), taps);
            into[o * (taps + 1) + taps] = b[bOff + o];
        }
    }

    /** What no image changes in a thread's packed panel: the columns past the output's last pixel, and the ones. */
    void preparePanel(float[] panel) {
        for (int t = 0; t < taps; t++) {
            Arrays.fill(panel, AT + t * columns + used, AT + (t + 1) * columns, 0f);
        }
        Arrays.fill(panel, AT + taps * columns, AT + (taps + 1) * columns, 1f);
    }

    /** The image at {@code x[image]}, its conv + bias into {@code product} [Co, columns]. */
    void convolve(float[] x, int image, float[] wb, float[] panel, float[] product) {
        for (int t = 0; t < taps; t++) {
            System.arraycopy(x, image + tapOffsets[t], panel, AT + t * columns, used);
        }
        Gemm.multiplyPanel(
                conv.outChannels(), columns, taps + 1, wb, 0, taps + 1, panel, AT, columns, product, AT, columns);
    }

    /** The pooled ReLU of {@code product} into the image's output at {@code y[out]}. */
    void pool(float[] product, float[] y, int out) {
        int pooled = pool.outHeight() * pool.outWidth();
        for (int o = 0; o < conv.outChannels(); o++) {
            PlanePool.forward(product, AT + o * columns, conv.width(), 0f, y, out + o * pooled, pool);
        }
    }

    /**
     * The convolution's gradient into {@code gradient} [Co, columns], from the pooled one at {@code dy[out]} where
     * {@code product} is positive. Its columns that hold no output pixel must be zero, as a thread's array is
     * made; they stay so.
     */
    void unpool(float[] dy, int out, float[] product, float[] gradient) {
        int pooled = pool.outHeight() * pool.outWidth();
        for (int o = 0; o < conv.outChannels(); o++) {
            PlanePool.backward(
                    dy, out + o * pooled, product, AT + o * columns, gradient, AT + o * columns, conv.width(), pool);
        }
    }

    /**
     * Adds the image's filter and bias gradients to {@code lanes}, each as a vector of sums not yet added
     * together, so that each image's dot products cost no sum of their lanes: the lanes are added once, at the end.
     */
    void addGradients(float[] gradient, float[] panel, float[] lanes) {
        // [dw | db] [Co, taps + 1] += gradient [Co, columns] · panelᵀ, the ones row summing the bias's
        Gemm.addDotLanes(conv.outChannels(), taps + 1, columns, gradient, AT, panel, AT, lanes, 0);
    }

    /** The sums that {@code lanes} hold, each its lanes first to last, into {@code sums} at {@code at}. */
    void sumLanes(float[] lanes, float[] sums, int at) {
        for (int g = 0; g < gradientLength(); g++) {
            sums[at + g] = Vectors.sumLanes(lanes, g * Gemm.species().length());
        }
    }

    /** The summed gradients into dw [Co, C·Kh·Kw] and db [Co]. */
    void store(float[] sums, float[] dw, int dwOff, float[] db, int dbOff) {
        for (int o = 0; o < conv.outChannels(); o++) {
            System.arraycopy(sums, o * (taps + 1), dw, dwOff + o * taps, taps);
            db[dbOff + o] = sums[o * (taps + 1) + taps];
        }
    }
}
