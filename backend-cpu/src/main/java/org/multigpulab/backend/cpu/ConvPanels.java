package org.multigpulab.backend.cpu;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;
import org.multigpulab.device.ConvShape;

/**
 * A convolution's matrices, cut into panels of columns. The columns are the output pixels of the whole
 * batch, image after image and row after row; a panel is a few vectors of them. Each kernel packs the panel
 * it needs just before the matrix multiply reads it and unpacks the product right after, so the im2col matrix
 * (conv2's: 500 rows × 81 columns an image) never exists whole, and what is packed is still in the core's
 * cache when it is read. A panel is {@code rows × width} with row {@code r} at {@code r·width}; columns past the pixels
 * asked for are zero, so the multiply runs whole vectors and their products are left out.
 *
 * <p>Any stride and padding: the windows of a run of output pixels start {@code stride} apart, so a tap's run is
 * gathered at that stride (and scattered back by col2im); a padded input is read from a copy of each image with
 * zeros around its planes, made image by image in a small ring of a thread's own ({@link #padImage}), where the
 * input gradient is also gathered before it is copied out without the padding. Stride 1 without padding (LeNet's)
 * reads the input in place, as it always has.
 */
final class ConvPanels {

    private final int pixels;
    private final int outWidth;
    /** One image of the tensor the input panels read: the input itself, or its padded copy in the ring. */
    private final int inputSample;

    private final int outputSample;
    /** A row of that tensor. */
    private final int width;

    private final int kernelWidth;
    private final int stride;
    /** Where the next output row's windows start, relative to this one's: {@code stride} rows of that tensor. */
    private final int rowStep;
    /** The zeros around each plane of the input, and the input's own planes, which the ring's copy surrounds. */
    private final int padding;

    private final int channels;
    private final int inputHeight;
    private final int inputWidth;
    /**
     * Images a thread's ring holds: where the convolution pads its input, the panels read each image from a copy with
     * the zeros around each plane, made when the first panel reaches the image, into slot {@code image % ring} (the
     * backward pass gathers its gradient there). The ring holds as many images as the widest panel can reach at
     * once, and one more. 0 where the panels read the input in place.
     */
    private final int ring;
    /** Where tap {@code t = (c·kh + p)·kw + q} of the filter reads, relative to its output pixel's corner. */
    private final int[] tapOffsets;

    /**
     * The panels of convolution {@code s}, cut at most {@code widestPanel} columns wide: the ring of padded images
     * holds as many as such a panel can reach.
     */
    ConvPanels(ConvShape s, int widestPanel) {
        this.pixels = s.outHeight() * s.outWidth();
        this.outWidth = s.outWidth();
        this.padding = s.padding();
        this.channels = s.inChannels();
        this.inputHeight = s.height();
        this.inputWidth = s.width();
        int height = s.height() + 2 * padding;
        this.width = s.width() + 2 * padding;
        this.inputSample = s.inChannels() * height * width;
        this.outputSample = s.outChannels() * pixels;
        this.kernelWidth = s.kernelWidth();
        this.stride = s.stride();
        this.rowStep = stride * width;
        this.ring = padding == 0 ? 0 : (widestPanel - 1) / pixels + 2;
        this.tapOffsets = new int[s.inChannels() * s.kernelHeight() * s.kernelWidth()];
        int t = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++) {
                    tapOffsets[t++] = (c * height + p) * width + q;
                }
            }
        }
    }

    /**
     * Whether the convolution has stride 1 and no padding, as LeNet's: its panels read the input in place, each
     * run of output pixels a run of the input.
     */
    boolean simple() {
        return stride == 1 && padding == 0;
    }

    /** Whether the panels read the input from the ring of padded images. */
    boolean padded() {
        return ring > 0;
    }

    /** Floats of a thread's ring of padded images. */
    int ringLength() {
        return ring * inputSample;
    }

    /** Rows of an input panel: one per filter tap. */
    int taps() {
        return tapOffsets.length;
    }

    /** Output pixels of one image: the columns an image adds. */
    int pixels() {
        return pixels;
    }

    /**
     * The runs of one panel: stretches of columns that are contiguous in the tensor they come from, each with
     * where it starts in the panel ({@code column}), in the tensor ({@code offset}) and how long it is.
     */
    private static final class Runs {
        int count;
        int[] column = new int[0];
        int[] offset = new int[0];
        int[] length = new int[0];

        void add(int at, int from, int n) {
            if (count == column.length) {
                int grown = Math.max(16, 2 * count);
                column = Arrays.copyOf(column, grown);
                offset = Arrays.copyOf(offset, grown);
                length = Arrays.copyOf(length, grown);
            }
            column[count] = at;
            offset[count] = from;
            length[count++] = n;
        }
    }

    /** Each thread's runs, reused: the panels of one convolution are cut on several cores at once. */
    private final ThreadLocal<Runs> runs = ThreadLocal.withInitial(Runs::new);

    /**
     * The runs of columns {@code [from, to)}: with {@code input}, pieces of output rows, each offset where its
     * first pixel's window starts in the input or in its ring slot (the window's other taps are {@link #tapOffsets}
     * further, the next pixel's window {@code stride} further); else pieces of images, each offset where its first
     * pixel is in the output.
     */
    private Runs runs(int from, int to, boolean input) {
        Runs r = runs.get();
        r.count = 0;
        for (int j = from; j < to; ) {
            int image = j / pixels, pixel = j % pixels;
            int length = Math.min(to - j, input ? outWidth - pixel % outWidth : pixels - pixel);
            r.add(
                    j - from,
                    input
                            ? (ring == 0 ? image : image % ring) * inputSample
                                    + pixel / outWidth * rowStep
                                    + pixel % outWidth * stride
                            : image * outputSample + pixel,
                    length);
            j += length;
        }
        return r;
    }

    /** im2col of columns {@code [from, to)}: panel[t, j] = x[image, c, i + p, j + q] for tap t = (c, p, q). */
    void packInput(float[] x, int xOff, int from, int to, float[] panel, int at, int panelWidth) {
        Runs r = runs(from, to, true);
        for (int i = 0; i < r.count; i++) {
            int corner = xOff + r.offset[i], column = r.column[i], length = r.length[i];
            if (length >= Gemm.species().length()) {
                for (int t = 0; t < tapOffsets.length; t++) {
                    Vectors.copyRow(x, corner + tapOffsets[t], panel, at + t * panelWidth + column, length);
                }
            } else {
                VectorMask<Float> mask = Vectors.shortRowMask(length);
                for (int t = 0; t < tapOffsets.length; t++) {
                    Vectors.copyShortRow(x, corner + tapOffsets[t], panel, at + t * panelWidth + column, length, mask);
                }
            }
        }
        zeroPadding(panel, at, tapOffsets.length, to - from, panelWidth);
    }

    /**
     * col2im of a panel, the transpose of {@link #packInput}: dx[image, c, i + p, j + q] += panel[t, j].
     *
     * <p>Where a run and the window's width fit in one vector (conv2: 9 + 4 ≤ 16), the {@code kw} taps of a
     * filter row land on one stretch of dx: it is loaded once, gets each tap's run shifted q lanes along, and
     * is stored once, where adding the runs one by one would load and store it {@code kw} times. Otherwise every
     * tap's run is added on its own, taps outermost, so that two additions in a row never overlap (each load would
     * wait for the store before it).
     */
    void addInputGradient(float[] panel, int at, int panelWidth, int from, int to, float[] dx, int dxOff) {
        Runs r = runs(from, to, true);
        VectorSpecies<Float> species = Gemm.species();
        for (int i = 0; i < r.count; i++) {
            int length = r.length[i], column = r.column[i];
            if (length + kernelWidth - 1 > species.length()) {
                continue;
            }
            VectorMask<Float> stretch = species.indexInRange(0, length + kernelWidth - 1);
            VectorMask<Float> run = species.indexInRange(0, length);
            for (int t = 0; t < tapOffsets.length; t += kernelWidth) {
                int target = dxOff + r.offset[i] + tapOffsets[t];
                FloatVector sum = FloatVector.fromArray(species, dx, target, stretch);
                for (int q = 0; q < kernelWidth; q++) {
                    FloatVector tap = FloatVector.fromArray(species, panel, at + (t + q) * panelWidth + column, run);
                    sum = sum.add(tap.unslice(q));
                }
                sum.intoArray(dx, target, stretch);
            }
        }
        for (int t = 0; t < tapOffsets.length; t++) {
            int target = dxOff + tapOffsets[t], row = at + t * panelWidth;
            for (int i = 0; i < r.count; i++) {
                if (r.length[i] + kernelWidth - 1 > species.length()) {
                    Vectors.addRow(panel, row + r.column[i], dx, target + r.offset[i], r.length[i]);
                }
            }
        }
    }

    /** panel[o, j] = y[image, o, pixel]: an output (or its gradient) as a matrix of channels by pixels. */
    void packOutput(float[] y, int yOff, int channels, int from, int to, float[] panel, int at, int panelWidth) {
        Runs r = runs(from, to, false);
        for (int i = 0; i < r.count; i++) {
            for (int o = 0; o < channels; o++) {
                System.arraycopy(
                        y, yOff + r.offset[i] + o * pixels, panel, at + o * panelWidth + r.column[i], r.length[i]);
            }
        }
        zeroPadding(panel, at, channels, to - from, panelWidth);
    }

    /**
     * The inverse of {@link #packOutput}: y[image, o, pixel] = panel[o, j], plus {@code bias[bOff + o]} where
     * {@code bias} is not null (added as the panel is read, which costs no pass of its own).
     */
    void storeOutput(
            float[] panel,
            int at,
            int panelWidth,
            int channels,
            int from,
            int to,
            float[] y,
            int yOff,
            float[] bias,
            int bOff) {
        Runs r = runs(from, to, false);
        for (int i = 0; i < r.count; i++) {
            for (int o = 0; o < channels; o++) {
                int source = at + o * panelWidth + r.column[i], target = yOff + r.offset[i] + o * pixels;
                if (bias == null) {
                    System.arraycopy(panel, source, y, target, r.length[i]);
                } else {
                    Vectors.copyRowPlus(panel, source, bias[bOff + o], y, target, r.length[i]);
                }
            }
        }
    }

    /**
     * panel[j, o] = y[image, o, pixel] for columns j of {@code [from, to)}, rows {@code panelWidth} long with the
     * channels past {@code channels} zero: an output gradient as the right-hand factor of the filter gradient,
     * whose sum runs over the pixels.
     */
    void packOutputTransposed(
            float[] y, int yOff, int channels, int from, int to, float[] panel, int at, int panelWidth) {
        Runs r = runs(from, to, false);
        for (int i = 0; i < r.count; i++) {
            for (int o = 0; o < channels; o++) {
                int source = yOff + r.offset[i] + o * pixels, target = at + r.column[i] * panelWidth + o;
                for (int j = 0; j < r.length[i]; j++) {
                    panel[target + j * panelWidth] = y[source + j];
                }
            }
        }
        for (int j = 0; j < to - from; j++) {
            Arrays.fill(panel, at + j * panelWidth + channels, at + (j + 1) * panelWidth, 0f);
        }
    }

    /**
     * {@code into[t]} = {@code xOff} plus where tap t reads, relative to its window's corner, for t below
     * {@code rows}: the row offsets of im2col(x) as a view of x. Rows past the last tap (padding) repeat it.
     */
    int[] tapOffsets(int[] into, int rows, int xOff) {
        for (int t = 0; t < rows; t++) {
            into[t] = xOff + tapOffsets[Math.min(t, tapOffsets.length - 1)];
        }
        return into;
    }

    /**
     * {@code into[j − from]} = where the window of column j starts in the input (or its ring slot): the column
     * offsets of im2col(x) as a view of x.
     */
    int[] windowCorners(int[] into, int from, int to) {
        Runs r = runs(from, to, true);
        for (int i = 0; i < r.count; i++) {
            for (int j = 0; j < r.length[i]; j++) {
                into[r.column[i] + j] = r.offset[i] + j * stride;
            }
        }
        return into;
    }

    // --- any stride and padding ------------------------------------------------------------------------------

    /**
     * Image {@code image} of x copied into its slot of the ring at {@code ringOff}, each plane's rows in place; the
     * zeros around them are the ring's own, which nothing else writes (its owner clears a ring that held another
     * convolution's images). Rows of a vector or more are copied in whole vectors.
     */
    void padImage(float[] x, int xOff, int image, float[] ringArray, int ringOff) {
        int to = ringOff + image % ring * inputSample + padding * width + padding;
        int from = xOff + image * channels * inputHeight * inputWidth;
        int skip = 2 * padding * width;
        if (inputWidth >= Gemm.species().length()) {
            for (int c = 0; c < channels; c++, to += skip) {
                for (int i = 0; i < inputHeight; i++, from += inputWidth, to += width) {
                    Vectors.copyRow(x, from, ringArray, to, inputWidth);
                }
            }
        } else {
            for (int c = 0; c < channels; c++, to += skip) {
                for (int i = 0; i < inputHeight; i++, from += inputWidth, to += width) {
                    System.arraycopy(x, from, ringArray, to, inputWidth);
                }
            }
        }
    }

    /** Zeros over image {@code image}'s slot of the ring, for its gradient to be gathered there. */
    void clearImage(float[] ringArray, int ringOff, int image) {
        int at = ringOff + image % ring * inputSample;
        Arrays.fill(ringArray, at, at + inputSample, 0f);
    }

    /** Image {@code image}'s gradient, gathered in its ring slot, into dx without the padding. */
    void cropImage(float[] ringArray, int ringOff, int image, float[] dx, int dxOff) {
        int from = ringOff + image % ring * inputSample + padding * width + padding;
        int to = dxOff + image * channels * inputHeight * inputWidth;
        for (int c = 0; c < channels; c++) {
            for (int i = 0; i < inputHeight; i++) {
                System.arraycopy(ringArray, from, dx, to, inputWidth);
                from += width;
                to += inputWidth;
            }
            from += 2 * padding * width;
        }
    }

    /**
     * im2col of columns {@code [from, to)} and taps {@code [t0, t1)}, at any stride: panel[t − t0, j] = x[image, c,
     * i·stride + p, j·stride + q] for tap t = (c, p, q), x being the input or the ring. Rows of one tap's run are
     * copied as {@link #packInput} copies them where the stride is 1, else gathered one float at a time.
     */
    void packInput(float[] x, int xOff, int from, int to, int t0, int t1, float[] panel, int at, int panelWidth) {
        Runs r = runs(from, to, true);
        int first = at - t0 * panelWidth;
        for (int i = 0; i < r.count; i++) {
            int corner = xOff + r.offset[i], column = first + r.column[i], length = r.length[i];
            if (stride == 1 && length >= Gemm.species().length()) {
                for (int t = t0; t < t1; t++) {
                    Vectors.copyRow(x, corner + tapOffsets[t], panel, column + t * panelWidth, length);
                }
            } else if (stride == 1) {
                VectorMask<Float> mask = Vectors.shortRowMask(length);
                for (int t = t0; t < t1; t++) {
                    Vectors.copyShortRow(x, corner + tapOffsets[t], panel, column + t * panelWidth, length, mask);
                }
            } else {
                for (int t = t0; t < t1; t++) {
                    gather(x, corner + tapOffsets[t], stride, panel, column + t * panelWidth, length);
                }
            }
        }
        zeroPadding(panel, at, t1 - t0, to - from, panelWidth);
    }

    /** {@code dst[d + j] = src[s + j·step]} for j below n. */
    private static void gather(float[] src, int s, int step, float[] dst, int d, int n) {
        for (int j = 0; j < n; j++) {
            dst[d + j] = src[s + j * step];
        }
    }

    /**
     * col2im of a panel at a stride above 1, the transpose of {@link #packInput(float[], int, int, int, int, int,
     * float[], int, int)}: dx[image, c, i·stride + p, j·stride + q] += panel[t, j], dx being the input's gradient or
     * the ring, one float at a time, taps outermost.
     */
    void addStridedInputGradient(float[] panel, int at, int panelWidth, int from, int to, float[] dx, int dxOff) {
        Runs r = runs(from, to, true);
        for (int t = 0; t < tapOffsets.length; t++) {
            int target = dxOff + tapOffsets[t], row = at + t * panelWidth;
            for (int i = 0; i < r.count; i++) {
                int d = target + r.offset[i], p = row + r.column[i];
                for (int j = 0; j < r.length[i]; j++) {
                    dx[d + j * stride] += panel[p + j];
                }
            }
        }
    }

    private static void zeroPadding(float[] panel, int at, int rows, int used, int panelWidth) {
        if (used < panelWidth) {
            for (int r = 0; r < rows; r++) {
                Arrays.fill(panel, at + r * panelWidth + used, at + (r + 1) * panelWidth, 0f);
            }
        }
    }
}
