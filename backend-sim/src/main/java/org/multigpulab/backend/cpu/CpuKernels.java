package org.multigpulab.backend.cpu;

import java.util.Arrays;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The {@code cpu} device's kernels. Convolutions are im2col followed by a matrix multiply over a group of
 * samples side by side, groups spread over the cores; the weight gradient sums per-core partials in a fixed
 * order, so a run gives the same bits every time on the same machine. Arguments were checked by {@code InstrumentedKernels}.
 */
final class CpuKernels implements Kernels {

    private final Scratch columns = new Scratch();
    private final Scratch transposed = new Scratch();
    private final Scratch transposedB = new Scratch();
    private final Scratch grouped = new Scratch();

    private static CpuBuffer cpu(Buffer b) {
        return (CpuBuffer) b;
    }

    // --- convolution -----------------------------------------------------------------------------------

    /**
     * Images per matrix multiply: a convolution's GEMMs are as wide as the output pixels of the images taken
     * together, so small images (conv2's 9×9) are grouped until the GEMM has about {@link #GROUP_COLUMNS}
     * columns, enough for the vector kernels and their column panels, few enough for the columns to stay in cache.
     */
    private static final int GROUP_COLUMNS = 1536;

    private static int group(ConvShape s) {
        return Math.max(1, Math.min(s.batch(), GROUP_COLUMNS / (s.outHeight() * s.outWidth())));
    }

    /**
     * im2col of one sample into the columns {@code [at, at + Ho·Wo)} of a matrix {@code ld} columns wide:
     * col[(c·kh + p)·kw + q, at + i·ow + j] = x[c, i + p, j + q].
     */
    private static void im2col(float[] x, int xOff, ConvShape s, float[] col, int ld, int at) {
        int oh = s.outHeight(), ow = s.outWidth(), h = s.height(), w = s.width();
        int row = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++, row++) {
                    int dst = row * ld + at;
                    for (int i = 0; i < oh; i++) {
                        System.arraycopy(x, xOff + (c * h + i + p) * w + q, col, dst + i * ow, ow);
                    }
                }
            }
        }
    }

    /** The transpose of {@link #im2col}: dx[c, i + p, j + q] += col[(c·kh + p)·kw + q, at + i·ow + j]. */
    private static void col2im(float[] col, int ld, int at, ConvShape s, float[] dx, int dxOff) {
        int oh = s.outHeight(), ow = s.outWidth(), h = s.height(), w = s.width();
        int row = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++, row++) {
                    int src = row * ld + at;
                    for (int i = 0; i < oh; i++) {
                        int d = dxOff + (c * h + i + p) * w + q;
                        int sr = src + i * ow;
                        for (int j = 0; j < ow; j++) {
                            dx[d + j] += col[sr + j];
                        }
                    }
                }
            }
        }
    }

    /**
     * Between a batch's layout, image after image of [Co, Ho·Wo], and a group's, [Co, G·Ho·Wo] with the images
     * side by side: {@code toGroup} copies {@code count} images from {@code batch} into {@code grouped}, else back.
     */
    private static void regroup(float[] batch, int batchOff, float[] grouped, int count, int channels, int pixels,
                                boolean toGroup) {
        int ld = count * pixels;
        for (int g = 0; g < count; g++) {
            for (int o = 0; o < channels; o++) {
                int image = batchOff + (g * channels + o) * pixels, side = o * ld + g * pixels;
                if (toGroup) {
                    System.arraycopy(batch, image, grouped, side, pixels);
                } else {
                    System.arraycopy(grouped, side, batch, image, pixels);
                }
            }
        }
    }

    /** Runs {@code body(first, count)} over groups of images of the batch, the groups spread over the cores. */
    private static void overGroups(ConvShape s, GroupBody body) {
        int g = group(s);
        int groups = (s.batch() + g - 1) / g;
        Parallel.forRange(groups, s.flops(), (chunk, from, to) -> {
            for (int i = from; i < to; i++) {
                body.run(chunk, i * g, Math.min(g, s.batch() - i * g));
            }
        });
    }

    @FunctionalInterface
    private interface GroupBody {
        void run(int chunk, int first, int count);
    }

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        CpuBuffer xb = cpu(x), wb = cpu(w), yb = cpu(y);
        int patch = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        int pixels = s.outHeight() * s.outWidth();
        int inSample = s.inChannels() * s.height() * s.width();
        int outSample = s.outChannels() * pixels;
        overGroups(s, (chunk, first, count) -> {
            int ld = count * pixels;
            float[] col = columns.get(patch * ld);
            float[] out = grouped.get(s.outChannels() * ld);
            for (int g = 0; g < count; g++) {
                im2col(xb.data, xb.offset + (first + g) * inSample, s, col, ld, g * pixels);
            }
            // y [Co, G·Ho·Wo] = w [Co, C·Kh·Kw] · col [C·Kh·Kw, G·Ho·Wo]
            Gemm.multiplyRows(false, s.outChannels(), ld, patch, 1f, wb.data, wb.offset, col, 0, 0f, out, 0,
                    0, s.outChannels());
            regroup(yb.data, yb.offset + first * outSample, out, count, s.outChannels(), pixels, false);
        });
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        CpuBuffer dyb = cpu(dy), wb = cpu(w), dxb = cpu(dx);
        int patch = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        int pixels = s.outHeight() * s.outWidth();
        int inSample = s.inChannels() * s.height() * s.width();
        int outSample = s.outChannels() * pixels;
        // wᵀ once, row by row, so the GEMM reads its rows contiguously (a transposed A is read with stride Co)
        float[] wT = transposedB.get(patch * s.outChannels());
        Gemm.transpose(wb.data, wb.offset, s.outChannels(), patch, wT);
        overGroups(s, (chunk, first, count) -> {
            int ld = count * pixels;
            float[] gradients = grouped.get(s.outChannels() * ld);
            float[] dcol = columns.get(patch * ld);
            regroup(dyb.data, dyb.offset + first * outSample, gradients, count, s.outChannels(), pixels, true);
            // dcol [C·Kh·Kw, G·Ho·Wo] = wᵀ · dy [Co, G·Ho·Wo]
            Gemm.multiplyRows(false, patch, ld, s.outChannels(), 1f, wT, 0, gradients, 0, 0f, dcol, 0, 0, patch);
            int dxOff = dxb.offset + first * inSample;
            Arrays.fill(dxb.data, dxOff, dxOff + count * inSample, 0f);
            for (int g = 0; g < count; g++) {
                col2im(dcol, ld, g * pixels, s, dxb.data, dxOff + g * inSample);
            }
        });
    }

    @Override
    public void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        CpuBuffer xb = cpu(x), dyb = cpu(dy), dwb = cpu(dw);
        int patch = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        int pixels = s.outHeight() * s.outWidth();
        int inSample = s.inChannels() * s.height() * s.width();
        int outSample = s.outChannels() * pixels;
        int filter = s.filterLength();
        int chunks = Parallel.chunks();
        boolean narrow = Gemm.narrow(patch);
        // Per-core partial sums: dw [Co, C·Kh·Kw] for a narrow filter, else its transpose [C·Kh·Kw, Co] with Co
        // padded to whole vectors (50 → 64), so that no column of the product falls to the scalar loop.
        int co = s.outChannels(), width = Gemm.roundUpToVectors(co);
        int partial = narrow ? filter : patch * width;
        float[] sums = new float[chunks * partial];
        overGroups(s, (chunk, first, count) -> {
            int ld = count * pixels;
            float[] col = columns.get(patch * ld);
            float[] gradients = grouped.get(co * ld);
            for (int g = 0; g < count; g++) {
                im2col(xb.data, xb.offset + (first + g) * inSample, s, col, ld, g * pixels);
            }
            regroup(dyb.data, dyb.offset + first * outSample, gradients, count, co, pixels, true);
            if (narrow) {
                // dw [Co, C·Kh·Kw] += dy [Co, G·Ho·Wo] · colᵀ, as dot products along the pixels
                Gemm.multiplyTransposedB(co, patch, ld, gradients, 0, col, 0, sums, chunk * partial);
            } else {
                // dwᵀ [C·Kh·Kw, Co] += col [C·Kh·Kw, G·Ho·Wo] · dyᵀ [G·Ho·Wo, Co]: transposing dy, the smaller
                float[] dyT = transposed.get(ld * width);
                Gemm.transposePadded(gradients, co, ld, dyT, width);
                Gemm.multiplyRows(false, patch, width, ld, 1f, col, 0, dyT, 0, 1f, sums, chunk * partial, 0, patch);
            }
        });
        // Add the per-chunk partial sums in chunk order: the result does not depend on thread timing.
        Arrays.fill(dwb.data, dwb.offset, dwb.offset + filter, 0f);
        for (int c = 0; c < chunks; c++) {
            for (int o = 0; o < co; o++) {
                for (int t = 0; t < patch; t++) {
                    dwb.data[dwb.offset + o * patch + t] += narrow ? sums[c * partial + o * patch + t]
                            : sums[c * partial + t * width + o];
                }
            }
        }
    }

    // --- bias ------------------------------------------------------------------------------------------

    @Override
    public void biasAdd(Buffer y, Buffer b, BiasShape s) {
        CpuBuffer yb = cpu(y), bb = cpu(b);
        for (int o = 0; o < s.outer(); o++) {
            for (int c = 0; c < s.channels(); c++) {
                float bias = bb.data[bb.offset + c];
                int base = yb.offset + (o * s.channels() + c) * s.inner();
                for (int i = 0; i < s.inner(); i++) {
                    yb.data[base + i] += bias;
                }
            }
        }
    }

    @Override
    public void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        CpuBuffer dyb = cpu(dy), dbb = cpu(db);
        Arrays.fill(dbb.data, dbb.offset, dbb.offset + s.channels(), 0f);
        for (int o = 0; o < s.outer(); o++) {
            for (int c = 0; c < s.channels(); c++) {
                dbb.data[dbb.offset + c] += Gemm.sum(dyb.data, dyb.offset + (o * s.channels() + c) * s.inner(), s.inner());
            }
        }
    }

    // --- average pooling -------------------------------------------------------------------------------

    /**
     * LeNet's pooling, 2×2 windows at stride 2, written out: the general loops spend more on their four
     * nested counters than on the four additions. The sums are added in the general loops' order, so both
     * paths give the same bits.
     */
    private static void halve(float[] x, int in, int width, float[] y, int out, int oh, int ow) {
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < ow; j++) {
                y[row + j] = (((x[top + 2 * j] + x[top + 2 * j + 1]) + x[bottom + 2 * j]) + x[bottom + 2 * j + 1]) * 0.25f;
            }
        }
    }

    /** The gradient of {@link #halve}: each output's gradient, a quarter of it, on the four inputs it averaged. */
    private static void spread(float[] dy, int out, int oh, int ow, float[] dx, int in, int width) {
        for (int i = 0; i < oh; i++) {
            int top = in + 2 * i * width, bottom = top + width, row = out + i * ow;
            for (int j = 0; j < ow; j++) {
                float g = dy[row + j] * 0.25f;
                dx[top + 2 * j] = g;
                dx[top + 2 * j + 1] = g;
                dx[bottom + 2 * j] = g;
                dx[bottom + 2 * j + 1] = g;
            }
        }
    }

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        float inv = 1f / (k * k);
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
        for (int plane = from; plane < to; plane++) {
            int in = xb.offset + plane * s.height() * s.width();
            int out = yb.offset + plane * oh * ow;
            if (k == 2 && s.stride() == 2) {
                halve(xb.data, in, s.width(), yb.data, out, oh, ow);
                continue;
            }
            for (int i = 0; i < oh; i++) {
                for (int j = 0; j < ow; j++) {
                    float sum = 0f;
                    for (int p = 0; p < k; p++) {
                        for (int q = 0; q < k; q++) {
                            sum += xb.data[in + (i * s.stride() + p) * s.width() + j * s.stride() + q];
                        }
                    }
                    yb.data[out + i * ow + j] = sum * inv;
                }
            }
        }
        });
    }

    @Override
    public void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        CpuBuffer dyb = cpu(dy), dxb = cpu(dx);
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        float inv = 1f / (k * k);
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
        int planeSize = s.height() * s.width();
        Arrays.fill(dxb.data, dxb.offset + from * planeSize, dxb.offset + to * planeSize, 0f);
        for (int plane = from; plane < to; plane++) {
            int in = dxb.offset + plane * planeSize;
            int out = dyb.offset + plane * oh * ow;
            if (k == 2 && s.stride() == 2) {
                spread(dyb.data, out, oh, ow, dxb.data, in, s.width());
                continue;
            }
            for (int i = 0; i < oh; i++) {
                for (int j = 0; j < ow; j++) {
                    float g = dyb.data[out + i * ow + j] * inv;
                    for (int p = 0; p < k; p++) {
                        for (int q = 0; q < k; q++) {
                            dxb.data[in + (i * s.stride() + p) * s.width() + j * s.stride() + q] += g;
                        }
                    }
                }
            }
        }
        });
    }

    // --- ReLU ------------------------------------------------------------------------------------------

    @Override
    public void reluForward(Buffer x, Buffer y, int n) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        Parallel.forRange(n, n, (chunk, from, to) -> {
            for (int i = from; i < to; i++) {
                yb.data[yb.offset + i] = Math.max(xb.data[xb.offset + i], 0f);
            }
        });
    }

    @Override
    public void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        CpuBuffer xb = cpu(x), dyb = cpu(dy), dxb = cpu(dx);
        // A mask instead of a branch: half the activations are negative at random, which a branch mispredicts
        // (measured 8.9 ms against 0.8 for conv1's 3.5 million at batch 256)
        Parallel.forRange(n, n, (chunk, from, to) ->
                Gemm.passWherePositive(xb.data, xb.offset, dyb.data, dyb.offset, dxb.data, dxb.offset, from, to));
    }

    // --- matrix multiply -------------------------------------------------------------------------------

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k,
                     float alpha, Buffer a, Buffer b, float beta, Buffer c) {
        CpuBuffer ab = cpu(a), bb = cpu(b), cb = cpu(c);
        float[] bRows = bb.data;
        int bOff = bb.offset;
        if (transB) {
            bRows = transposedB.get(k * n);
            Gemm.transpose(bb.data, bb.offset, n, k, bRows);
            bOff = 0;
        }
        float[] rowsOfB = bRows;
        int rowsOff = bOff;
        Parallel.forRange(m, 2L * m * n * k, (chunk, from, to) -> Gemm.multiplyRows(transA, m, n, k, alpha,
                ab.data, ab.offset, rowsOfB, rowsOff, beta, cb.data, cb.offset, from, to));
    }

    // --- softmax cross-entropy -------------------------------------------------------------------------

    @Override
    public void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
        CpuBuffer lb = cpu(logits), yb = cpu(labels), out = cpu(loss);
        for (int r = 0; r < batch; r++) {
            int row = lb.offset + r * classes;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < classes; j++) {
                max = Math.max(max, lb.data[row + j]);
            }
            double sum = 0;
            for (int j = 0; j < classes; j++) {
                sum += Math.exp(lb.data[row + j] - max);
            }
            int label = (int) yb.data[yb.offset + r];
            out.data[out.offset + r] = (float) (Math.log(sum) - (lb.data[row + label] - max));
        }
    }

    @Override
    public void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
        CpuBuffer lb = cpu(logits), yb = cpu(labels), db = cpu(dlogits);
        for (int r = 0; r < batch; r++) {
            int row = lb.offset + r * classes;
            int drow = db.offset + r * classes;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < classes; j++) {
                max = Math.max(max, lb.data[row + j]);
            }
            double sum = 0;
            for (int j = 0; j < classes; j++) {
                sum += Math.exp(lb.data[row + j] - max);
            }
            int label = (int) yb.data[yb.offset + r];
            for (int j = 0; j < classes; j++) {
                double p = Math.exp(lb.data[row + j] - max) / sum;
                db.data[drow + j] = (float) (j == label ? p - 1 : p);
            }
        }
    }

    // --- BLAS-1 ----------------------------------------------------------------------------------------

    @Override
    public void axpy(float alpha, Buffer x, Buffer y, int n) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        for (int i = 0; i < n; i++) {
            yb.data[yb.offset + i] += alpha * xb.data[xb.offset + i];
        }
    }

    @Override
    public void scale(float alpha, Buffer x, int n) {
        CpuBuffer xb = cpu(x);
        for (int i = 0; i < n; i++) {
            xb.data[xb.offset + i] *= alpha;
        }
    }

    @Override
    public void add(Buffer a, Buffer b, Buffer out, int n) {
        CpuBuffer ab = cpu(a), bb = cpu(b), ob = cpu(out);
        for (int i = 0; i < n; i++) {
            ob.data[ob.offset + i] = ab.data[ab.offset + i] + bb.data[bb.offset + i];
        }
    }

    @Override
    public void fill(float value, Buffer x, int n) {
        CpuBuffer xb = cpu(x);
        Arrays.fill(xb.data, xb.offset, xb.offset + n, value);
    }

    // --- metrics ---------------------------------------------------------------------------------------

    @Override
    public void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
        CpuBuffer lb = cpu(logits), yb = cpu(labels), cb = cpu(count);
        int matches = 0;
        for (int r = 0; r < batch; r++) {
            int row = lb.offset + r * classes;
            int best = 0;
            for (int j = 1; j < classes; j++) {
                if (lb.data[row + j] > lb.data[row + best]) {
                    best = j;
                }
            }
            if (best == (int) yb.data[yb.offset + r]) {
                matches++;
            }
        }
        cb.data[cb.offset] = matches;
    }
}
