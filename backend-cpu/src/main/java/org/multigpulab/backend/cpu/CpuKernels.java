package org.multigpulab.backend.cpu;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.KernelOp.ArgmaxMatches;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Call;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.KernelOp.Fill;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.KernelOp.Scale;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyBackward;
import org.multigpulab.device.KernelOp.SoftmaxCrossEntropyForward;
import org.multigpulab.device.KernelStream;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.PoolShape;

/**
 * The {@code cpu} device's kernels. Convolutions are matrix multiplies over the output pixels of the whole
 * batch, in panels packed just before use ({@link ConvPanels}), whole images per core; the weight gradient
 * sums per-core partials in a fixed order, so a run gives the same bits every time on the same machine. Stride 1
 * without padding (LeNet's) runs as it always has; any other stride and padding (ResNet's) goes through the same
 * panels, its padded images copied into a ring of each thread's own, its multiplies in taller blocks, and a stride-1
 * input gradient as a forward convolution with the filter turned. BatchNorm's kernels are {@link BatchNorm}'s.
 * Arguments were checked by {@code InstrumentedKernels}.
 */
final class CpuKernels implements Kernels {

    private final Scratch<float[]> inputPanel = Scratch.floats();
    private final Scratch<float[]> outputPanel = Scratch.floats();
    private final Scratch<float[]> productPanel = Scratch.floats();
    private final Scratch<float[]> transposedB = Scratch.floats();
    private final Scratch<float[]> transposedA = Scratch.floats();
    private final Scratch<float[]> transposedProduct = Scratch.floats();
    private final Scratch<int[]> tapRows = Scratch.ints();
    private final Scratch<int[]> pixelColumns = Scratch.ints();
    /** Each convolution shape's panel geometry, made once (streams may ask for it on several threads). */
    private final Map<ConvShape, ConvPanels> panels = new ConcurrentHashMap<>();
    /** Per-chunk partial sums of a gradient (filter, bias), the calling thread's, so that no step allocates them. */
    private final Scratch<float[]> partialSums = Scratch.floats();
    /** The fused first layer's packed image, and its geometry for each shape. */
    private final Scratch<float[]> firstLayerPanel = Scratch.floats();
    /** The fused first layer's gradients of a chunk's images, summed lane by lane. */
    private final Scratch<float[]> gradientLanes = Scratch.floats();
    /** A fused layer's convolution output where whole rows do not suit it, pooled from there. */
    private final Scratch<float[]> convolution = Scratch.floats();

    private final Map<ConvPoolShape, FusedFirstLayer> firstLayers = new ConcurrentHashMap<>();

    private static CpuBuffer cpu(Buffer b) {
        return (CpuBuffer) b;
    }

    // --- streams ---------------------------------------------------------------------------------------

    /**
     * Streams as many as the cores, or a multiple of them, run at once, one thread each: a loop inside a call
     * then runs its chunks on that thread alone, the same chunks, so every call gives the bits it gives alone.
     * 8 logical GPUs' shards of 32 then run as a batch of 256 does, a core's whole calls at a time, rather than
     * each small call split over the cores with a wait at its end. Other counts would leave a core idle at the end,
     * so they run one after another, each call over every core.
     */
    @Override
    public void launchStreams(List<KernelStream> streams) {
        if (streams.size() > 1 && streams.size() % Parallel.cores() == 0) {
            long[][] nanos = new long[streams.size()][];
            long start = System.nanoTime();
            Parallel.forEach(streams.size(), i -> nanos[i] = streams.get(i).run(this));
            double wall = System.nanoTime() - start, own = 0;
            for (long[] n : nanos) {
                own += Arrays.stream(n).sum();
            }
            for (int i = 0; i < streams.size(); i++) {
                streams.get(i).tell(nanos[i], own > 0 ? wall / own : 0);
            }
        } else {
            Kernels.super.launchStreams(streams);
        }
    }

    // --- convolution -----------------------------------------------------------------------------------

    /** Columns (output pixels) per panel. */
    private static final int PANEL = Gemm.panelWidth();

    /** Where each panel starts in its scratch array: on a cache line where the JVM allows it. */
    private static final int LINE_START = Scratch.LINE_START;

    private ConvPanels panels(ConvShape s) {
        return panels.computeIfAbsent(s, shape -> new ConvPanels(shape, widestPanel(shape)));
    }

    /** Columns of the forward pass's panels for a filter of {@code taps}. */
    private static int forwardPanel(int taps) {
        // With few taps (conv1's 9) a panel's multiply is short, so what each panel costs besides it dominates:
        // such panels are wider, as many floats as a panel of 64 taps.
        return PANEL * Math.max(1, 64 / taps);
    }

    /** Columns of the filter gradient's panels for a filter of {@code taps}. */
    private static int filterPanel(int taps) {
        return (Gemm.narrow(taps) ? 32 : 4) * PANEL;
    }

    /** The widest panel any kernel of convolution {@code s} cuts. */
    private static int widestPanel(ConvShape s) {
        int taps = s.inChannels() * s.kernelHeight() * s.kernelWidth();
        return Math.max(forwardPanel(taps), filterPanel(taps));
    }

    /**
     * Runs {@code body(chunk, from, to, width)} over panels of the batch's columns: whole images per core, so that
     * no two cores write the same image, and each core's columns in panels of {@link #PANEL}, the last one
     * {@code width} rounded up to whole vectors.
     */
    private static void overPanels(ConvShape s, ConvPanels cp, int panel, PanelBody body) {
        Parallel.forRange(s.batch(), s.flops(), (chunk, first, last) -> {
            int end = last * cp.pixels();
            for (int from = first * cp.pixels(); from < end; from += panel) {
                int to = Math.min(from + panel, end);
                body.run(chunk, from, to, Gemm.roundUpToVectors(to - from));
            }
        });
    }

    @FunctionalInterface
    private interface PanelBody {
        void run(int chunk, int from, int to, int width);
    }

    @Override
    public void launch(Call call) {
        switch (call) {
            case Conv2dForward(var x, var w, var y, var s) -> conv2dForward(x, w, y, s);
            case Conv2dBackwardData(var dy, var w, var dx, var s) -> conv2dBackwardData(dy, w, dx, s);
            case Conv2dBackwardFilter(var x, var dy, var dw, var s) -> conv2dBackwardFilter(x, dy, dw, s);
            case BiasAdd(var y, var b, var s) -> biasAdd(y, b, s);
            case BiasAddBackward(var dy, var db, var s) -> biasAddBackward(dy, db, s);
            case AvgPoolForward(var x, var y, var s) -> avgPoolForward(x, y, s);
            case AvgPoolBackward(var dy, var dx, var s) -> avgPoolBackward(dy, dx, s);
            case KernelOp.MaxPoolForward(var x, var y, var s) -> MaxPool.forward(cpu(x), cpu(y), s);
            case KernelOp.MaxPoolBackward(var x, var dy, var dx, var s) ->
                MaxPool.backward(cpu(x), cpu(dy), cpu(dx), s);
            case ReluForward(var x, var y, var n) -> reluForward(x, y, n);
            case ReluBackward(var x, var dy, var dx, var n) -> reluBackward(x, dy, dx, n);
            case Conv2dBiasForward(var x, var w, var b, var y, var s) -> conv2dBiasForward(x, w, b, y, s);
            case ReluAvgPoolForward(var x, var y, var s) -> reluAvgPoolForward(x, y, s);
            case ReluAvgPoolBackward(var x, var dy, var dx, var s) -> reluAvgPoolBackward(x, dy, dx, s);
            case Conv2dBiasReluAvgPoolForward(var x, var w, var b, var y, var s) ->
                conv2dBiasReluAvgPoolForward(x, w, b, y, s);
            // FusedFirstLayer runs stride 1 without padding; other layers run as the separate ops
            case Conv2dBiasReluAvgPoolBackward f when !panels(f.s().conv()).simple() -> f.launchComposed(this);
            case Conv2dBiasReluAvgPoolBackward(var x, var w, var b, var dy, var dw, var db, var s) ->
                conv2dBiasReluAvgPoolBackward(x, w, b, dy, dw, db, s);
            case KernelOp.Gemm(var transA, var transB, var m, var n, var k, var alpha, var a, var b, var beta, var c) ->
                gemm(transA, transB, m, n, k, alpha, a, b, beta, c);
            case SoftmaxCrossEntropyForward(var logits, var labels, var loss, var batch, var classes) ->
                softmaxCrossEntropyForward(logits, labels, loss, batch, classes);
            case SoftmaxCrossEntropyBackward(var logits, var labels, var dlogits, var batch, var classes) ->
                softmaxCrossEntropyBackward(logits, labels, dlogits, batch, classes);
            case Axpy(var alpha, var x, var y, var n) -> axpy(alpha, x, y, n);
            case Scale(var alpha, var x, var n) -> scale(alpha, x, n);
            case Add(var a, var b, var out, var n) -> add(a, b, out, n);
            case Fill(var value, var x, var n) -> fill(value, x, n);
            case KernelOp.SgdStep s -> sgdStep(s);
            case KernelOp.AdamStep a -> adamStep(a);
            case KernelOp.SquaredDeviations(var x, var mean, var m2, var s) -> squaredDeviations(x, mean, m2, s);
            case KernelOp.BatchNormForward f -> batchNormForward(f);
            case KernelOp.BatchNormRunningUpdate u -> batchNormRunningUpdate(u);
            case KernelOp.BatchNormBackwardReduce r -> batchNormBackwardReduce(r);
            case KernelOp.BatchNormBackwardData d -> batchNormBackwardData(d);
            case ArgmaxMatches(var logits, var labels, var count, var batch, var classes) ->
                argmaxMatches(logits, labels, count, batch, classes);
        }
    }

    private void conv2dForward(Buffer x, Buffer w, Buffer y, ConvShape s) {
        CpuBuffer yb = cpu(y);
        convolve(cpu(x), cpu(w), null, yb.data, yb.offset, s);
    }

    private void conv2dBiasForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvShape s) {
        CpuBuffer yb = cpu(y);
        convolve(cpu(x), cpu(w), cpu(b), yb.data, yb.offset, s);
    }

    /**
     * y = w ⋆ x into {@code y} at {@code yOff}, plus {@code b} (if not null) added to each channel as its panel is
     * stored.
     */
    private void convolve(CpuBuffer xb, CpuBuffer wb, CpuBuffer bb, float[] y, int yOff, ConvShape s) {
        ConvPanels cp = panels(s);
        if (!cp.simple()) {
            convolveStridedPadded(
                    xb.data,
                    xb.offset,
                    wb.data,
                    wb.offset,
                    bb == null ? null : bb.data,
                    bb == null ? 0 : bb.offset,
                    y,
                    yOff,
                    s,
                    cp);
            return;
        }
        int co = s.outChannels(), taps = cp.taps();
        // With few taps (conv1's 9) a panel's multiply is short, so what each panel costs besides it dominates:
        // such panels are wider, as many floats as a panel of 64 taps.
        overPanels(s, cp, PANEL * Math.max(1, 64 / taps), (chunk, from, to, width) -> {
            float[] columns = inputPanel.get(LINE_START + taps * width);
            float[] product = productPanel.get(LINE_START + co * width);
            cp.packInput(xb.data, xb.offset, from, to, columns, LINE_START, width);
            // y [Co, pixels] = w [Co, C·Kh·Kw] · im2col(x) [C·Kh·Kw, pixels]
            Gemm.multiplyPanel(
                    co, width, taps, wb.data, wb.offset, taps, columns, LINE_START, width, product, LINE_START, width);
            cp.storeOutput(
                    product,
                    LINE_START,
                    width,
                    co,
                    from,
                    to,
                    y,
                    yOff,
                    bb == null ? null : bb.data,
                    bb == null ? 0 : bb.offset);
        });
    }

    private void conv2dBackwardData(Buffer dy, Buffer w, Buffer dx, ConvShape s) {
        CpuBuffer dyb = cpu(dy), wb = cpu(w), dxb = cpu(dx);
        ConvPanels cp = panels(s);
        if (!cp.simple()) {
            backwardDataStridedPadded(dyb, wb, dxb, s, cp);
            return;
        }
        int co = s.outChannels(), taps = cp.taps();
        int inSample = s.inChannels() * s.height() * s.width();
        // wᵀ once, row by row, so the multiply reads its rows contiguously (a transposed A is read with stride Co)
        float[] wT = transposedB.get(taps * co);
        Gemm.transpose(wb.data, wb.offset, co, taps, 0f, wT, 0);
        overPanels(s, cp, PANEL, (chunk, from, to, width) -> {
            float[] gradients = outputPanel.get(LINE_START + co * width);
            float[] columns = productPanel.get(LINE_START + taps * width);
            cp.packOutput(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, width);
            // dcol [C·Kh·Kw, pixels] = wᵀ · dy [Co, pixels]
            Gemm.multiplyPanel(taps, width, co, wT, 0, co, gradients, LINE_START, width, columns, LINE_START, width);
            // An image's gradient is cleared when its first pixel comes up: earlier panels never touch it
            for (int image = (from + cp.pixels() - 1) / cp.pixels(); image * cp.pixels() < to; image++) {
                int at = dxb.offset + image * inSample;
                Arrays.fill(dxb.data, at, at + inSample, 0f);
            }
            cp.addInputGradient(columns, LINE_START, width, from, to, dxb.data, dxb.offset);
        });
    }

    private void conv2dBackwardFilter(Buffer x, Buffer dy, Buffer dw, ConvShape s) {
        CpuBuffer xb = cpu(x), dyb = cpu(dy), dwb = cpu(dw);
        ConvPanels cp = panels(s);
        if (!cp.simple()) {
            backwardFilterStridedPadded(xb, dyb, dwb, s, cp);
            return;
        }
        int co = s.outChannels(), taps = cp.taps();
        boolean narrow = Gemm.narrow(taps);
        // Per-core partial sums: dw [Co, C·Kh·Kw] for a narrow filter, else its transpose [C·Kh·Kw, Co] with Co
        // padded to the columns Gemm.multiplyView runs (50 → 64, or 56 with 256-bit vectors), and the taps to its
        // rows (500 → 500; 501 for three-row blocks, 504 for six-row ones).
        int coPadded = Gemm.viewColumns(co);
        int tapsPadded = Gemm.roundUpTo(taps, Gemm.viewRows(coPadded));
        int partial = narrow ? co * taps : taps * coPadded;
        // The output gradient's rows whole cache lines apart
        int gradientRow = Gemm.roundUpTo(coPadded, Scratch.LINE_FLOATS);
        int chunks = Parallel.chunks(s.batch(), s.flops());
        float[] sums = partialSums(chunks * partial);
        // A narrow filter's dot products run along a panel's pixels: 32 panels wide, so that each panel's dot
        // products are long (its two packed operands, 29 rows for conv1, take half of a 512 KB L2 on AVX2).
        overPanels(s, cp, (narrow ? 32 : 4) * PANEL, (chunk, from, to, width) -> {
            if (narrow) {
                // dw [Co, C·Kh·Kw] += dy [Co, pixels] · im2col(x)ᵀ, as dot products along the pixels
                float[] columns = inputPanel.get(LINE_START + taps * width);
                float[] gradients = outputPanel.get(LINE_START + co * width);
                cp.packInput(xb.data, xb.offset, from, to, columns, LINE_START, width);
                cp.packOutput(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, width);
                Gemm.dots(co, taps, width, 1f, gradients, LINE_START, columns, LINE_START, 1f, sums, chunk * partial);
            } else {
                // dwᵀ [C·Kh·Kw, Co] += im2col(x) [C·Kh·Kw, pixels] · dyᵀ [pixels, Co], im2col(x) read in x itself.
                // The panel's product is stored, then added (Gemm.accumulate says why).
                float[] gradients = outputPanel.get(LINE_START + (to - from) * gradientRow);
                float[] product = productPanel.get(LINE_START + tapsPadded * coPadded);
                cp.packOutputTransposed(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, gradientRow);
                Gemm.multiplyView(
                        tapsPadded,
                        coPadded,
                        to - from,
                        xb.data,
                        cp.tapOffsets(tapRows.get(tapsPadded), tapsPadded, xb.offset),
                        cp.windowCorners(pixelColumns.get(to - from), from, to),
                        gradients,
                        LINE_START,
                        gradientRow,
                        product,
                        LINE_START,
                        coPadded);
                Vectors.addRow(product, LINE_START, sums, chunk * partial, partial);
            }
        });
        // Then stored as dw, transposed back where it was dwᵀ.
        addChunksIntoFirst(sums, chunks, partial);
        if (narrow) {
            System.arraycopy(sums, 0, dwb.data, dwb.offset, co * taps);
        } else {
            for (int t = 0; t < taps; t++) {
                for (int o = 0; o < co; o++) {
                    dwb.data[dwb.offset + o * taps + t] = sums[t * coPadded + o];
                }
            }
        }
    }

    // --- convolution at any stride and padding ---------------------------------------------------------

    /**
     * The deepest multiply a forward panel runs at once: deeper filters (ResNet's 1,152 to 4,608 taps) are cut into
     * blocks of taps whose packed panel, 576 × 128 floats, stays in a core's L2 cache while every row of the filter
     * runs over it, their products added in block order.
     */
    private static final int MOST_TAPS = 576;

    /** A thread's ring of padded images ({@link ConvPanels#padded}), the forward pass's or the filter gradient's. */
    private final Scratch<float[]> inputRing = Scratch.floats();
    /** A thread's ring of padded images' gradients, the input gradient's. */
    private final Scratch<float[]> gradientRing = Scratch.floats();
    /** The filter turned by 180° with its channels swapped, for the input gradient as a forward convolution. */
    private final Scratch<float[]> turnedFilter = Scratch.floats();

    /** {@code into[c, o, p, q] = w[o, c, kh − 1 − p, kw − 1 − q]}, a range of input channels per core. */
    private static void turn(float[] w, int wOff, ConvShape s, float[] into) {
        int co = s.outChannels(), ci = s.inChannels(), kh = s.kernelHeight(), kw = s.kernelWidth(), k = kh * kw;
        Parallel.forRange(ci, (long) s.filterLength() * 4, (chunk, from, to) -> {
            for (int c = from; c < to; c++) {
                for (int o = 0; o < co; o++) {
                    int src = wOff + (o * ci + c) * k + k - 1, dst = (c * co + o) * k;
                    for (int t = 0; t < k; t++) {
                        into[dst + t] = w[src - t];
                    }
                }
            }
        });
    }

    /** A block of taps' product, added to the panel's sum. */
    private final Scratch<float[]> blockProduct = Scratch.floats();

    @FunctionalInterface
    private interface ImageStep {
        void run(int image);
    }

    private static final ImageStep NOTHING = image -> {};

    /** {@link PanelBody} told whether the panel is its chunk's first. */
    @FunctionalInterface
    private interface ChunkPanelBody {
        void run(int chunk, int from, int to, int width, boolean first);
    }

    /**
     * {@link #overPanels} with each image made ready ({@code ready}) before the first panel that reaches it runs, and
     * handed on ({@code done}) after the panel that ends at or past its last column: a padded image copied into the
     * thread's ring, a padded gradient cleared there and then copied out.
     */
    private static void overPanels(
            ConvShape s, ConvPanels cp, int panel, ImageStep ready, ImageStep done, ChunkPanelBody body) {
        int pixels = cp.pixels();
        Parallel.forRange(s.batch(), s.flops(), (chunk, first, last) -> {
            int end = last * pixels, next = first, finished = first;
            for (int from = first * pixels; from < end; from += panel) {
                int to = Math.min(from + panel, end);
                for (; next * pixels < to; next++) {
                    ready.run(next);
                }
                body.run(chunk, from, to, Gemm.roundUpToVectors(to - from), from == first * pixels);
                for (; (finished + 1) * pixels <= to; finished++) {
                    done.run(finished);
                }
            }
        });
    }

    /**
     * The calling thread's ring of padded input images for {@code cp}, its padding zero: {@link ConvPanels#padImage}
     * writes only the images themselves, so the ring is cleared only when it last held another convolution's images
     * (or is new).
     */
    private float[] inputRing(ConvPanels cp) {
        float[] ring = inputRing.get(LINE_START + cp.ringLength());
        Object[] holds = ringHolds.get();
        if (holds[0] != cp || holds[1] != ring) {
            Arrays.fill(ring, 0f);
            holds[0] = cp;
            holds[1] = ring;
        }
        return ring;
    }

    /** Whose images each thread's input ring holds, and in which array: {convolution's panels, ring}. */
    private final ThreadLocal<Object[]> ringHolds = ThreadLocal.withInitial(() -> new Object[2]);

    /** The calling thread's ring of padded images for {@code cp}. */
    private float[] ring(Scratch<float[]> ring, ConvPanels cp) {
        return ring.get(LINE_START + cp.ringLength());
    }

    /**
     * {@link #convolve} at any stride and padding: the panels read a padded input from each thread's ring, and a
     * filter deeper than {@link #MOST_TAPS} is multiplied a block of taps at a time.
     */
    private void convolveStridedPadded(
            float[] x,
            int xOff,
            float[] w,
            int wOff,
            float[] bias,
            int bOff,
            float[] y,
            int yOff,
            ConvShape s,
            ConvPanels cp) {
        int co = s.outChannels(), taps = cp.taps();
        int blocks = (taps + MOST_TAPS - 1) / MOST_TAPS, depth = (taps + blocks - 1) / blocks;
        boolean padded = cp.padded();
        ImageStep pad = padded ? image -> cp.padImage(x, xOff, image, inputRing(cp), LINE_START) : NOTHING;
        overPanels(s, cp, forwardPanel(taps), pad, NOTHING, (chunk, from, to, width, first) -> {
            float[] source = padded ? inputRing(cp) : x;
            int sourceOff = padded ? LINE_START : xOff;
            float[] columns = inputPanel.get(LINE_START + depth * width);
            float[] sum = productPanel.get(LINE_START + co * width);
            for (int t0 = 0; t0 < taps; t0 += depth) {
                int t1 = Math.min(taps, t0 + depth);
                cp.packInput(source, sourceOff, from, to, t0, t1, columns, LINE_START, width);
                // y [Co, pixels] = Σ over blocks of w [Co, block's taps] · im2col(x) [block's taps, pixels]
                float[] product = t0 == 0 ? sum : blockProduct.get(LINE_START + co * width);
                Gemm.multiplyPanelSixRows(
                        co, width, t1 - t0, w, wOff + t0, taps, columns, LINE_START, width, product, LINE_START, width);
                if (t0 > 0) {
                    Vectors.addRow(product, LINE_START, sum, LINE_START, co * width);
                }
            }
            cp.storeOutput(sum, LINE_START, width, co, from, to, y, yOff, bias, bOff);
        });
    }

    /**
     * {@link #conv2dBackwardData} at any stride and padding: a padded input's gradient is gathered in each thread's
     * ring and copied out without its padding once the panels are past the image; col2im adds at the stride.
     */
    private void backwardDataStridedPadded(CpuBuffer dyb, CpuBuffer wb, CpuBuffer dxb, ConvShape s, ConvPanels cp) {
        int kh = s.kernelHeight(), kw = s.kernelWidth();
        if (s.stride() == 1 && kh == kw && s.padding() <= kh - 1) {
            // dx = dy ⋆ w turned by 180° with its input and output channels swapped, dy padded by k − 1 − p: a
            // forward convolution, whose multiplies run along the filter's taps (Co·Kh·Kw deep) where col2im's run
            // along the output channels alone, and which writes each element of dx once
            ConvShape turned = new ConvShape(
                    s.batch(),
                    s.outChannels(),
                    s.outHeight(),
                    s.outWidth(),
                    s.inChannels(),
                    kh,
                    kw,
                    1,
                    kh - 1 - s.padding());
            float[] wt = turnedFilter.get(s.filterLength());
            turn(wb.data, wb.offset, s, wt);
            convolveStridedPadded(dyb.data, dyb.offset, wt, 0, null, 0, dxb.data, dxb.offset, turned, panels(turned));
            return;
        }
        int co = s.outChannels(), taps = cp.taps();
        int inSample = s.inChannels() * s.height() * s.width();
        boolean padded = cp.padded();
        float[] wT = transposedB.get(taps * co);
        Gemm.transpose(wb.data, wb.offset, co, taps, 0f, wT, 0);
        ImageStep clear = padded
                ? image -> cp.clearImage(ring(gradientRing, cp), LINE_START, image)
                : image ->
                        Arrays.fill(dxb.data, dxb.offset + image * inSample, dxb.offset + (image + 1) * inSample, 0f);
        ImageStep crop = padded
                ? image -> cp.cropImage(ring(gradientRing, cp), LINE_START, image, dxb.data, dxb.offset)
                : NOTHING;
        overPanels(s, cp, PANEL, clear, crop, (chunk, from, to, width, first) -> {
            float[] gradients = outputPanel.get(LINE_START + co * width);
            float[] columns = productPanel.get(LINE_START + taps * width);
            cp.packOutput(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, width);
            // dcol [C·Kh·Kw, pixels] = wᵀ · dy [Co, pixels]
            Gemm.multiplyPanelSixRows(
                    taps, width, co, wT, 0, co, gradients, LINE_START, width, columns, LINE_START, width);
            float[] target = padded ? ring(gradientRing, cp) : dxb.data;
            int targetOff = padded ? LINE_START : dxb.offset;
            if (s.stride() == 1) {
                cp.addInputGradient(columns, LINE_START, width, from, to, target, targetOff);
            } else {
                cp.addStridedInputGradient(columns, LINE_START, width, from, to, target, targetOff);
            }
        });
    }

    /**
     * {@link #conv2dBackwardFilter} at any stride and padding: im2col(x) read in the ring of padded images, or in x;
     * a wide filter's multiply one block of output channels at a time, so that the block's output gradients stay
     * in cache while every tap runs over them.
     */
    private void backwardFilterStridedPadded(CpuBuffer xb, CpuBuffer dyb, CpuBuffer dwb, ConvShape s, ConvPanels cp) {
        int co = s.outChannels(), taps = cp.taps();
        boolean narrow = Gemm.narrow(taps), padded = cp.padded();
        int coPadded = Gemm.viewColumns(co);
        boolean sixRows = Gemm.sixRowViews(coPadded);
        int tapsPadded = Gemm.roundUpTo(taps, sixRows ? 6 : Gemm.viewRows(coPadded));
        // a wide filter's partial sums hold the padded rows its multiply writes: each chunk's first panel writes there
        int partial = narrow ? co * taps : tapsPadded * coPadded;
        int gradientRow = Gemm.roundUpTo(coPadded, Scratch.LINE_FLOATS);
        int chunks = Parallel.chunks(s.batch(), s.flops());
        // the narrow filter's dot products add into zeros; a wide one's first panel of each chunk stores its product
        // there
        float[] sums = narrow ? partialSums(chunks * partial) : partialSums.get(chunks * partial);
        ImageStep pad = padded ? image -> cp.padImage(xb.data, xb.offset, image, inputRing(cp), LINE_START) : NOTHING;
        overPanels(s, cp, filterPanel(taps), pad, NOTHING, (chunk, from, to, width, first) -> {
            float[] source = padded ? inputRing(cp) : xb.data;
            int sourceOff = padded ? LINE_START : xb.offset;
            if (narrow) {
                float[] columns = inputPanel.get(LINE_START + taps * width);
                float[] gradients = outputPanel.get(LINE_START + co * width);
                cp.packInput(source, sourceOff, from, to, 0, taps, columns, LINE_START, width);
                cp.packOutput(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, width);
                Gemm.dots(co, taps, width, 1f, gradients, LINE_START, columns, LINE_START, 1f, sums, chunk * partial);
            } else {
                float[] gradients = outputPanel.get(LINE_START + (to - from) * gradientRow);
                // the chunk's first panel is multiplied straight into its partial sums, the others beside them
                float[] product = first ? sums : productPanel.get(LINE_START + tapsPadded * coPadded);
                int at = first ? chunk * partial : LINE_START;
                cp.packOutputTransposed(dyb.data, dyb.offset, co, from, to, gradients, LINE_START, gradientRow);
                int[] rows = cp.tapOffsets(tapRows.get(tapsPadded), tapsPadded, sourceOff);
                int[] corners = cp.windowCorners(pixelColumns.get(to - from), from, to);
                if (sixRows) {
                    Gemm.multiplyViewSixRows(
                            tapsPadded,
                            coPadded,
                            to - from,
                            source,
                            rows,
                            corners,
                            gradients,
                            LINE_START,
                            gradientRow,
                            product,
                            at,
                            coPadded);
                }
                for (int j = 0; !sixRows && j < coPadded; j += Gemm.viewBlock()) {
                    Gemm.multiplyView(
                            tapsPadded,
                            Math.min(Gemm.viewBlock(), coPadded - j),
                            to - from,
                            source,
                            rows,
                            corners,
                            gradients,
                            LINE_START + j,
                            gradientRow,
                            product,
                            at + j,
                            coPadded);
                }
                if (!first) {
                    Vectors.addRow(product, LINE_START, sums, chunk * partial, partial);
                }
            }
        });
        if (narrow) {
            addChunksIntoFirst(sums, chunks, partial);
            System.arraycopy(sums, 0, dwb.data, dwb.offset, co * taps);
        } else {
            sumChunksTransposed(sums, chunks, partial, taps, co, coPadded, dwb.data, dwb.offset);
        }
    }

    /** A thread's block of rows of the filter gradient's chunk sums, added up before it is stored transposed. */
    private final Scratch<float[]> sumRows = Scratch.floats();

    /** Rows of the chunk sums that {@link #sumChunksTransposed} adds up and stores at a time. */
    private static final int SUM_ROWS = 16;

    /**
     * {@code dw[o, t]} = the sum over chunks, in chunk order, of {@code sums[chunk·partial + t·coPadded + o]}: the
     * chunks' partial dwᵀ added up and stored transposed in one pass, blocks of {@link #SUM_ROWS} taps on the cores,
     * each block's sums kept in cache while they are stored one output channel's run of taps after another (ResNet's
     * last stage: 8 chunks of 4,608 × 512 floats, which added into the first and stored one float per cache line cost
     * as much as a fifth of the multiply).
     */
    private void sumChunksTransposed(
            float[] sums, int chunks, int partial, int taps, int co, int coPadded, float[] dw, int dwOff) {
        int blocks = (taps + SUM_ROWS - 1) / SUM_ROWS;
        Parallel.forRange(blocks, (long) chunks * partial, (chunk, from, to) -> {
            float[] rows = sumRows.get(SUM_ROWS * coPadded);
            for (int block = from; block < to; block++) {
                int t0 = block * SUM_ROWS, n = Math.min(SUM_ROWS, taps - t0) * coPadded;
                System.arraycopy(sums, t0 * coPadded, rows, 0, n);
                for (int c = 1; c < chunks; c++) {
                    Vectors.addRow(sums, c * partial + t0 * coPadded, rows, 0, n);
                }
                for (int o = 0; o < co; o++) {
                    for (int t = t0; t < Math.min(taps, t0 + SUM_ROWS); t++) {
                        dw[dwOff + o * taps + t] = rows[(t - t0) * coPadded + o];
                    }
                }
            }
        });
    }

    /**
     * The per-chunk partial sums, {@code partial} floats each, added into the first chunk's in chunk order, so that
     * the result does not depend on thread timing, whole vectors at a time.
     */
    private static void addChunksIntoFirst(float[] sums, int chunks, int partial) {
        for (int c = 1; c < chunks; c++) {
            Vectors.addRow(sums, c * partial, sums, 0, partial);
        }
    }

    /**
     * Zeros for {@code n} partial sums, one slice per core, added up afterwards in core order so that a result
     * does not depend on which thread finished first.
     */
    private float[] partialSums(int n) {
        float[] sums = partialSums.get(n);
        Arrays.fill(sums, 0, n, 0f);
        return sums;
    }

    // --- a first convolution, its bias, ReLU and pooling -----------------------------------------------

    /**
     * Each core's images one at a time through {@link FusedFirstLayer}: packed, multiplied and pooled in arrays
     * that stay in the core's cache. Where its whole rows would multiply many columns that are no output pixel
     * ({@link FusedFirstLayer#suits}), the convolution goes through panels into a scratch array and is pooled
     * from there, as the separate ops do.
     */
    private void conv2dBiasReluAvgPoolForward(Buffer x, Buffer w, Buffer b, Buffer y, ConvPoolShape s) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        if (!FusedFirstLayer.suits(s.conv()) || !panels(s.conv()).simple()) {
            float[] output = convolution.get(s.conv().outputLength());
            convolve(xb, cpu(w), cpu(b), output, 0, s.conv());
            pool(output, 0, yb.data, yb.offset, s.pool(), 0f);
            return;
        }
        FusedFirstLayer layer = firstLayer(s);
        float[] wb = filterWithBias(layer, cpu(w), cpu(b));
        ConvShape c = s.conv();
        int inSample = c.inChannels() * c.height() * c.width(), outSample = s.outputLength() / c.batch();
        Parallel.forRange(c.batch(), c.flops(), (chunk, first, last) -> {
            float[] panel = firstLayerPanel.get(layer.panelLength()), product = productPanel.get(layer.outputLength());
            layer.preparePanel(panel);
            for (int image = first; image < last; image++) {
                layer.convolve(xb.data, xb.offset + image * inSample, wb, panel, product);
                layer.pool(product, yb.data, yb.offset + image * outSample);
            }
        });
    }

    /**
     * As the forward pass, each image's convolution again, then in the core's cache its gradient from the pooled
     * one and from that the filter's and the bias's, added lane by lane to the chunk's sums, whose lanes are added
     * at the chunk's end. The separate ops sum panels of a few images each, so the two round differently. Whole
     * rows whatever the shape: training fuses the first layer only, where they suit.
     */
    private void conv2dBiasReluAvgPoolBackward(
            Buffer x, Buffer w, Buffer b, Buffer dy, Buffer dw, Buffer db, ConvPoolShape s) {
        CpuBuffer xb = cpu(x), dyb = cpu(dy), dwb = cpu(dw), dbb = cpu(db);
        FusedFirstLayer layer = firstLayer(s);
        float[] wb = filterWithBias(layer, cpu(w), cpu(b));
        ConvShape c = s.conv();
        int inSample = c.inChannels() * c.height() * c.width(), outSample = s.outputLength() / c.batch();
        int chunks = Parallel.chunks(c.batch(), c.flops()), partial = layer.gradientLength();
        float[] sums = partialSums.get(chunks * partial);
        Parallel.forRange(c.batch(), c.flops(), (chunk, first, last) -> {
            float[] panel = firstLayerPanel.get(layer.panelLength()), product = productPanel.get(layer.outputLength());
            float[] gradient = outputPanel.get(layer.outputLength()), lanes = gradientLanes.get(layer.lanesLength());
            layer.preparePanel(panel);
            Arrays.fill(gradient, 0, layer.outputLength(), 0f);
            Arrays.fill(lanes, 0, layer.lanesLength(), 0f);
            for (int image = first; image < last; image++) {
                layer.convolve(xb.data, xb.offset + image * inSample, wb, panel, product);
                layer.unpool(dyb.data, dyb.offset + image * outSample, product, gradient);
                layer.addGradients(gradient, panel, lanes);
            }
            layer.sumLanes(lanes, sums, chunk * partial);
        });
        addChunksIntoFirst(sums, chunks, partial);
        layer.store(sums, dwb.data, dwb.offset, dbb.data, dbb.offset);
    }

    private FusedFirstLayer firstLayer(ConvPoolShape s) {
        return firstLayers.computeIfAbsent(s, shape -> new FusedFirstLayer(shape, panels(shape.conv())));
    }

    /** The calling thread's [w | b], which the cores' threads then read. */
    private float[] filterWithBias(FusedFirstLayer layer, CpuBuffer wb, CpuBuffer bb) {
        float[] into = transposedA.get(layer.gradientLength());
        layer.filterWithBias(wb.data, wb.offset, bb.data, bb.offset, into);
        return into;
    }

    // --- bias ------------------------------------------------------------------------------------------

    private void biasAdd(Buffer y, Buffer b, BiasShape s) {
        CpuBuffer yb = cpu(y), bb = cpu(b);
        int channels = s.channels(), inner = s.inner();
        Parallel.forRange(s.outer(), s.length(), (chunk, from, to) -> {
            for (int o = from; o < to; o++) {
                int row = yb.offset + o * channels * inner;
                if (inner == 1) {
                    // A dense layer's row: one bias per element, a loop the compiler turns into vector adds
                    for (int c = 0; c < channels; c++) {
                        yb.data[row + c] += bb.data[bb.offset + c];
                    }
                    continue;
                }
                for (int c = 0; c < channels; c++) {
                    float bias = bb.data[bb.offset + c];
                    int plane = row + c * inner;
                    for (int i = 0; i < inner; i++) {
                        yb.data[plane + i] += bias;
                    }
                }
            }
        });
    }

    private void biasAddBackward(Buffer dy, Buffer db, BiasShape s) {
        CpuBuffer dyb = cpu(dy), dbb = cpu(db);
        if (s.inner() > 1) {
            // a convolution's planes: channel by channel, as BatchNorm's sums (its mean is this op's)
            BatchNorm.channelSums(dyb.data, dyb.offset, dbb.data, dbb.offset, s);
            return;
        }
        // a dense layer's rows: per-core partial sums of each column, added in core order
        int chunks = Parallel.chunks(s.outer(), s.length()), channels = s.channels();
        float[] sums = partialSums(chunks * channels);
        Parallel.forRange(s.outer(), s.length(), (chunk, from, to) -> {
            int partial = chunk * channels;
            for (int o = from; o < to; o++) {
                int row = dyb.offset + o * channels;
                for (int c = 0; c < channels; c++) {
                    sums[partial + c] += dyb.data[row + c];
                }
            }
        });
        Arrays.fill(dbb.data, dbb.offset, dbb.offset + channels, 0f);
        for (int chunk = 0; chunk < chunks; chunk++) {
            for (int c = 0; c < channels; c++) {
                dbb.data[dbb.offset + c] += sums[chunk * channels + c];
            }
        }
    }

    // --- batch normalisation ({@link BatchNorm}) -------------------------------------------------------

    private void squaredDeviations(Buffer x, Buffer mean, Buffer m2, BiasShape s) {
        CpuBuffer xb = cpu(x), mb = cpu(mean), m2b = cpu(m2);
        BatchNorm.squaredDeviations(xb.data, xb.offset, mb.data, mb.offset, m2b.data, m2b.offset, s);
    }

    private void batchNormForward(KernelOp.BatchNormForward f) {
        CpuBuffer x = cpu(f.x()), mean = cpu(f.mean()), var = cpu(f.var()), gamma = cpu(f.gamma());
        CpuBuffer beta = cpu(f.beta()), y = cpu(f.y());
        BatchNorm.forward(
                x.data,
                x.offset,
                mean.data,
                mean.offset,
                var.data,
                var.offset,
                gamma.data,
                gamma.offset,
                beta.data,
                beta.offset,
                y.data,
                y.offset,
                f.eps(),
                f.s());
    }

    private void batchNormRunningUpdate(KernelOp.BatchNormRunningUpdate u) {
        CpuBuffer mean = cpu(u.mean()), var = cpu(u.var()), rm = cpu(u.runningMean()), rv = cpu(u.runningVar());
        CpuBuffer tracked = cpu(u.tracked());
        BatchNorm.runningUpdate(
                mean.data,
                mean.offset,
                var.data,
                var.offset,
                rm.data,
                rm.offset,
                rv.data,
                rv.offset,
                tracked.data,
                tracked.offset,
                u.momentum(),
                u.count(),
                u.channels());
    }

    private void batchNormBackwardReduce(KernelOp.BatchNormBackwardReduce r) {
        CpuBuffer x = cpu(r.x()), dy = cpu(r.dy()), mean = cpu(r.mean()), var = cpu(r.var());
        CpuBuffer sumDy = cpu(r.sumDy()), sumDyXhat = cpu(r.sumDyXhat());
        BatchNorm.backwardReduce(
                x.data,
                x.offset,
                dy.data,
                dy.offset,
                mean.data,
                mean.offset,
                var.data,
                var.offset,
                sumDy.data,
                sumDy.offset,
                sumDyXhat.data,
                sumDyXhat.offset,
                r.eps(),
                r.s());
    }

    private void batchNormBackwardData(KernelOp.BatchNormBackwardData d) {
        CpuBuffer x = cpu(d.x()), dy = cpu(d.dy()), mean = cpu(d.mean()), var = cpu(d.var());
        CpuBuffer gamma = cpu(d.gamma()), sumDy = cpu(d.sumDy()), sumDyXhat = cpu(d.sumDyXhat()), dx = cpu(d.dx());
        BatchNorm.backwardData(
                x.data,
                x.offset,
                dy.data,
                dy.offset,
                mean.data,
                mean.offset,
                var.data,
                var.offset,
                gamma.data,
                gamma.offset,
                sumDy.data,
                sumDy.offset,
                sumDyXhat.data,
                sumDyXhat.offset,
                dx.data,
                dx.offset,
                d.eps(),
                d.count(),
                d.s());
    }

    // --- average pooling -------------------------------------------------------------------------------

    private void avgPoolForward(Buffer x, Buffer y, PoolShape s) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        pool(xb.data, xb.offset, yb.data, yb.offset, s, Float.NaN);
    }

    private void reluAvgPoolForward(Buffer x, Buffer y, PoolShape s) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        pool(xb.data, xb.offset, yb.data, yb.offset, s, 0f);
    }

    private static void pool(float[] x, int xOff, float[] y, int yOff, PoolShape s, float floor) {
        int planeSize = s.height() * s.width(), pooled = s.outHeight() * s.outWidth();
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
            for (int plane = from; plane < to; plane++) {
                PlanePool.forward(x, xOff + plane * planeSize, s.width(), floor, y, yOff + plane * pooled, s);
            }
        });
    }

    private void avgPoolBackward(Buffer dy, Buffer dx, PoolShape s) {
        poolBackward(null, cpu(dy), cpu(dx), s);
    }

    private void reluAvgPoolBackward(Buffer x, Buffer dy, Buffer dx, PoolShape s) {
        poolBackward(cpu(x), cpu(dy), cpu(dx), s);
    }

    private static void poolBackward(CpuBuffer xb, CpuBuffer dyb, CpuBuffer dxb, PoolShape s) {
        int planeSize = s.height() * s.width(), pooled = s.outHeight() * s.outWidth();
        Parallel.forRange(s.planes(), (long) s.inputLength(), (chunk, from, to) -> {
            for (int plane = from; plane < to; plane++) {
                int in = plane * planeSize;
                PlanePool.backward(
                        dyb.data,
                        dyb.offset + plane * pooled,
                        xb == null ? null : xb.data,
                        xb == null ? 0 : xb.offset + in,
                        dxb.data,
                        dxb.offset + in,
                        s.width(),
                        s);
            }
        });
    }

    // --- ReLU ------------------------------------------------------------------------------------------

    private void reluForward(Buffer x, Buffer y, int n) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        Parallel.forRange(n, n, (chunk, from, to) -> Vectors.relu(xb.data, xb.offset, yb.data, yb.offset, from, to));
    }

    private void reluBackward(Buffer x, Buffer dy, Buffer dx, int n) {
        CpuBuffer xb = cpu(x), dyb = cpu(dy), dxb = cpu(dx);
        // A mask instead of a branch: half the activations are negative at random, which a branch mispredicts
        Parallel.forRange(
                n,
                n,
                (chunk, from, to) -> Vectors.passWherePositive(
                        xb.data, xb.offset, dyb.data, dyb.offset, dxb.data, dxb.offset, from, to));
    }

    // --- matrix multiply -------------------------------------------------------------------------------

    private void gemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            Buffer a,
            Buffer b,
            float beta,
            Buffer c) {
        CpuBuffer ab = cpu(a), bb = cpu(b), cb = cpu(c);
        if (transB && !transA && Gemm.narrow(n)) {
            // A few columns of A·Bᵀ are dot products of rows that are both contiguous: no transposed copy of B
            // (a gradient's squared norm, 1×k by k×1, would copy the whole gradient to read it once)
            Gemm.dots(m, n, k, alpha, ab.data, ab.offset, bb.data, bb.offset, beta, cb.data, cb.offset);
            return;
        }
        if (transB && !transA && (long) m * (k + n) < (long) n * k) {
            // A·Bᵀ = (B·Aᵀ)ᵀ, which copies A and the product instead of B: a shard of 32 rows times LeNet's dense
            // weights (800×128) moves 30 K floats instead of 102 K
            float[] aT = transposedA.get(LINE_START + k * m);
            float[] cT = transposedProduct.get(LINE_START + n * m);
            Gemm.transpose(ab.data, ab.offset, m, k, 0f, aT, LINE_START);
            Parallel.forRange(
                    n,
                    2L * m * n * k,
                    (chunk, from, to) -> Gemm.multiplyRows(
                            false, n, m, k, alpha, bb.data, bb.offset, aT, LINE_START, 0f, cT, LINE_START, from, to));
            Gemm.transpose(cT, LINE_START, n, m, beta, cb.data, cb.offset);
            return;
        }
        float[] bRows = bb.data;
        int bOff = bb.offset;
        if (transB) {
            bRows = transposedB.get(LINE_START + k * n);
            Gemm.transpose(bb.data, bb.offset, n, k, 0f, bRows, LINE_START);
            bOff = LINE_START;
        }
        float[] rowsOfB = bRows;
        int rowsOff = bOff;
        Parallel.forRange(
                m,
                2L * m * n * k,
                (chunk, from, to) -> Gemm.multiplyRows(
                        transA, m, n, k, alpha, ab.data, ab.offset, rowsOfB, rowsOff, beta, cb.data, cb.offset, from,
                        to));
    }

    // --- softmax cross-entropy -------------------------------------------------------------------------

    private void softmaxCrossEntropyForward(Buffer logits, Buffer labels, Buffer loss, int batch, int classes) {
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

    private void softmaxCrossEntropyBackward(Buffer logits, Buffer labels, Buffer dlogits, int batch, int classes) {
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

    private void axpy(float alpha, Buffer x, Buffer y, int n) {
        CpuBuffer xb = cpu(x), yb = cpu(y);
        for (int i = 0; i < n; i++) {
            yb.data[yb.offset + i] += alpha * xb.data[xb.offset + i];
        }
    }

    private void scale(float alpha, Buffer x, int n) {
        CpuBuffer xb = cpu(x);
        for (int i = 0; i < n; i++) {
            xb.data[xb.offset + i] *= alpha;
        }
    }

    private void add(Buffer a, Buffer b, Buffer out, int n) {
        CpuBuffer ab = cpu(a), bb = cpu(b), ob = cpu(out);
        for (int i = 0; i < n; i++) {
            ob.data[ob.offset + i] = ab.data[ab.offset + i] + bb.data[bb.offset + i];
        }
    }

    /** torch.optim.SGD's step, element by element in float32 as PyTorch's ops round it. */
    private void sgdStep(KernelOp.SgdStep s) {
        CpuBuffer p = cpu(s.param()), grad = cpu(s.grad()), buf = cpu(s.momentumBuffer());
        boolean momentum = s.momentum() != 0;
        for (int i = 0; i < s.n(); i++) {
            float g = s.gradScale() * grad.data[grad.offset + i];
            if (s.weightDecay() != 0) {
                g += s.weightDecay() * p.data[p.offset + i];
            }
            if (momentum) {
                int at = buf.offset + i;
                buf.data[at] = s.first() ? g : s.momentum() * buf.data[at] + (1 - s.dampening()) * g;
                g = s.nesterov() ? g + s.momentum() * buf.data[at] : buf.data[at];
            }
            p.data[p.offset + i] -= s.lr() * g;
        }
    }

    /** torch.optim.Adam's (AdamW's) step, element by element in float32 as PyTorch's ops round it. */
    private void adamStep(KernelOp.AdamStep a) {
        CpuBuffer p = cpu(a.param()), grad = cpu(a.grad()), m = cpu(a.m()), v = cpu(a.v());
        float stepSize = a.stepSize(), correction = a.correctionSqrt(), decay = a.decay();
        for (int i = 0; i < a.n(); i++) {
            int pi = p.offset + i, mi = m.offset + i, vi = v.offset + i;
            float g = a.gradScale() * grad.data[grad.offset + i];
            if (a.decoupled()) {
                p.data[pi] *= decay;
            } else if (a.weightDecay() != 0) {
                g += a.weightDecay() * p.data[pi];
            }
            m.data[mi] += (1 - a.beta1()) * (g - m.data[mi]);
            v.data[vi] = a.beta2() * v.data[vi] + (1 - a.beta2()) * g * g;
            p.data[pi] -= stepSize * m.data[mi] / ((float) Math.sqrt(v.data[vi]) / correction + a.eps());
        }
    }

    private void fill(float value, Buffer x, int n) {
        CpuBuffer xb = cpu(x);
        Arrays.fill(xb.data, xb.offset, xb.offset + n, value);
    }

    // --- metrics ---------------------------------------------------------------------------------------

    private void argmaxMatches(Buffer logits, Buffer labels, Buffer count, int batch, int classes) {
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
