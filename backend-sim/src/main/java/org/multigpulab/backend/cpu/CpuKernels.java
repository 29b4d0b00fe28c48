package org.multigpulab.backend.cpu;

import java.util.Arrays;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The {@code cpu} device's kernels. Convolutions are im2col followed by a matrix multiply, one sample at a
 * time, samples spread over the cores; the weight gradient sums per-core partials in a fixed order, so a run
 * gives the same bits every time on the same machine. Arguments were checked by {@code InstrumentedKernels}.
 */
final class CpuKernels implements Kernels {

    private final Scratch columns = new Scratch();
    private final Scratch transposed = new Scratch();
    private final Scratch transposedB = new Scratch();

    private static CpuBuffer cpu(Buffer b) {
        return (CpuBuffer) b;
    }

    // --- convolution -----------------------------------------------------------------------------------

    /** col[(c·kh + p)·kw + q, i·ow + j] = x[c, i + p, j + q] for one sample: [C·Kh·Kw, Ho·Wo]. */
    private static void im2col(float[] x, int xOff, ConvShape s, float[] col) {
        int oh = s.outHeight(), ow = s.outWidth(), h = s.height(), w = s.width();
        int row = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++, row++) {
                    int dst = row * oh * ow;
                    for (int i = 0; i < oh; i++) {
                        System.arraycopy(x, xOff + (c * h + i + p) * w + q, col, dst + i * ow, ow);
                    }
                }
            }
        }
    }

    /** The transpose of {@link #im2col}: dx[c, i + p, j + q] += col[(c·kh + p)·kw + q, i·ow + j]. */
    private static void col2im(float[] col, ConvShape s, float[] dx, int dxOff) {
        int oh = s.outHeight(), ow = s.outWidth(), h = s.height(), w = s.width();
        int row = 0;
        for (int c = 0; c < s.inChannels(); c++) {
            for (int p = 0; p < s.kernelHeight(); p++) {
                for (int q = 0; q < s.kernelWidth(); q++, row++) {
                    int src = row * oh * ow;
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

    @Override
    public void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        CpuBuffer xb = cpu(x), wb = cpu(w), yb = cpu(y);
        int patch = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        int pixels = s.outHeight() * s.outWidth();
        int inSample = s.inChannels() * s.height() * s.width();
        int outSample = s.outChannels() * pixels;
        Parallel.forRange(s.batch(), s.flops(), (chunk, from, to) -> {
            float[] col = columns.get(patch * pixels);
            for (int n = from; n < to; n++) {
                im2col(xb.data, xb.offset + n * inSample, s, col);
                // y[n] [Co, Ho·Wo] = w [Co, C·Kh·Kw] · col [C·Kh·Kw, Ho·Wo]
                Gemm.multiplyRows(false, s.outChannels(), pixels, patch, 1f, wb.data, wb.offset,
                        col, 0, 0f, yb.data, yb.offset + n * outSample, 0, s.outChannels());
            }
        });
    }

    @Override
    public void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        CpuBuffer dyb = cpu(dy), wb = cpu(w), dxb = cpu(dx);
        int patch = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        int pixels = s.outHeight() * s.outWidth();
        int inSample = s.inChannels() * s.height() * s.width();
        int outSample = s.outChannels() * pixels;
        Parallel.forRange(s.batch(), s.flops(), (chunk, from, to) -> {
            float[] dcol = columns.get(patch * pixels);
            for (int n = from; n < to; n++) {
                // dcol [C·Kh·Kw, Ho·Wo] = wᵀ · dy[n] [Co, Ho·Wo]
                Gemm.multiplyRows(true, patch, pixels, s.outChannels(), 1f, wb.data, wb.offset,
                        dyb.data, dyb.offset + n * outSample, 0f, dcol, 0, 0, patch);
                int dxOff = dxb.offset + n * inSample;
                Arrays.fill(dxb.data, dxOff, dxOff + inSample, 0f);
                col2im(dcol, s, dxb.data, dxOff);
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
        float[] sums = new float[chunks * filter];
        Parallel.forRange(s.batch(), s.flops(), (chunk, from, to) -> {
            float[] col = columns.get(patch * pixels);
            float[] rows = transposed.get(pixels * patch);
            for (int n = from; n < to; n++) {
                im2col(xb.data, xb.offset + n * inSample, s, col);
                int dyOff = dyb.offset + n * outSample;
                if (Gemm.narrow(patch)) {
                    // dw [Co, C·Kh·Kw] += dy[n] [Co, Ho·Wo] · colᵀ, as dot products along the pixels
                    Gemm.multiplyTransposedB(s.outChannels(), patch, pixels, dyb.data, dyOff, col, 0,
                            sums, chunk * filter);
                } else {
                    // dw [Co, C·Kh·Kw] += dy[n] [Co, Ho·Wo] · colᵀ [Ho·Wo, C·Kh·Kw]
                    Gemm.transpose(col, 0, patch, pixels, rows);
                    Gemm.multiplyRows(false, s.outChannels(), patch, pixels, 1f, dyb.data, dyOff, rows, 0, 1f,
                            sums, chunk * filter, 0, s.outChannels());
                }
            }
        });
        // Add the per-chunk partial sums in chunk order: the result does not depend on thread timing.
        Arrays.fill(dwb.data, dwb.offset, dwb.offset + filter, 0f);
        for (int c = 0; c < chunks; c++) {
            for (int i = 0; i < filter; i++) {
                dwb.data[dwb.offset + i] += sums[c * filter + i];
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
                int base = dyb.offset + (o * s.channels() + c) * s.inner();
                float sum = 0f;
                for (int i = 0; i < s.inner(); i++) {
                    sum += dyb.data[base + i];
                }
                dbb.data[dbb.offset + c] += sum;
            }
        }
    }

    // --- average pooling -------------------------------------------------------------------------------

    @Override
    public void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        int oh = s.outHeight(), ow = s.outWidth(), k = s.window();
        float inv = 1f / (k * k);
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
        for (int plane = from; plane < to; plane++) {
            int in = xb.offset + plane * s.height() * s.width();
            int out = yb.offset + plane * oh * ow;
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
        Parallel.forRange(n, n, (chunk, from, to) -> {
            for (int i = from; i < to; i++) {
                dxb.data[dxb.offset + i] = xb.data[xb.offset + i] > 0f ? dyb.data[dyb.offset + i] : 0f;
            }
        });
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
