package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.PoolShape;

/**
 * The kernel calls the host calibration times: every op at several sizes, each twice to four times the one
 * before. Convolutions and GEMMs are measured at the lab's own layers (LeNet's two convolutions, the dense layers
 * of LeNet and the MLP) at every shard a training run gives them, 8 to 256 images a convolution and 16 to 1,024
 * a dense layer: their speed depends on the shape as much as on the work (how a shape fills the vector registers
 * and the caches), which a cost per FLOP and per byte cannot tell from other shapes. A model with other layers is
 * charged by a fit over these, its time then a guess from shapes near it. Element-wise kernels depend on their
 * length: measured from a thousand elements (in a core's first cache) to millions (in memory).
 */
final class CalibrationCases implements AutoCloseable {

    /** The largest buffer any case needs, in floats. */
    private static final int LARGEST = 1 << 23;

    /** The part of each scratch buffer that calls take their regions from in turn, in floats: 4 MB. */
    private static final int WINDOW = 1 << 20;

    private static final int CLASSES = 10;

    private final Buffer a;
    private final Buffer b;
    private final Buffer c;
    private final Buffer labels;
    private final Buffer count;
    private final List<KernelOp.Call> calls = new ArrayList<>();
    private final Map<Buffer, Integer> cursors = new IdentityHashMap<>();

    /** Allocates the scratch buffers on {@code device}, fills them with small random values, and makes the calls. */
    CalibrationCases(Device device) {
        a = random(device, 1);
        b = random(device, 2);
        c = random(device, 3);
        // class 0 for every row: a valid label, and the kernels' speed does not depend on it
        labels = device.upload(new float[4096]);
        count = device.allocate(1);
        convolutions();
        gemms();
        norms();
        elementWise();
    }

    List<KernelOp.Call> calls() {
        return calls;
    }

    /**
     * LeNet's two convolutions: nine taps per output from one channel, and 500 taps from twenty; the forward pass
     * alone (the rate a GPU profile's FLOPs are set against) and fused with its bias, as training runs the second;
     * the first with its bias, ReLU and pooling in one op each way, as training runs it.
     */
    private void convolutions() {
        ConvShape deep = new ConvShape(1, 20, 13, 13, 50, 5, 5);
        ConvShape shallow = new ConvShape(1, 1, 28, 28, 20, 3, 3);
        for (ConvShape shape : List.of(deep, shallow)) {
            for (int batch : new int[] {8, 16, 32, 64, 128, 256}) {
                ConvShape s = shape.withBatch(batch);
                // as in a step: the forward and the filter gradient read the same x, the three the same w or dw
                Buffer x = next(a, s.inputLength()), w = next(b, s.filterLength()), dy = next(c, s.outputLength());
                calls.add(new KernelOp.Conv2dForward(x, w, next(c, s.outputLength()), s));
                calls.add(new KernelOp.Conv2dBiasForward(x, w, next(b, s.outChannels()), next(c, s.outputLength()), s));
                calls.add(new KernelOp.Conv2dBackwardData(dy, w, next(a, s.inputLength()), s));
                calls.add(new KernelOp.Conv2dBackwardFilter(x, dy, w, s));
                if (shape == shallow) {
                    ConvPoolShape first = new ConvPoolShape(s, 2, 2);
                    Buffer bias = next(b, s.outChannels()), pooled = next(c, first.outputLength());
                    calls.add(new KernelOp.Conv2dBiasReluAvgPoolForward(x, w, bias, pooled, first));
                    calls.add(new KernelOp.Conv2dBiasReluAvgPoolBackward(
                            x, w, bias, pooled, next(b, s.filterLength()), next(b, s.outChannels()), first));
                }
            }
        }
    }

    /**
     * The dense layers of LeNet (800→128→10) and of the MLP (784→256→10), each product the training takes: y = x·w
     * (NN), dw = xᵀ·dy (TN), dx = dy·wᵀ (NT), from a small batch to one whose x no longer fits in a core's
     * cache.
     */
    private void gemms() {
        int[][] layers = {{800, 128}, {128, 10}, {784, 256}, {256, 10}};
        for (int[] layer : layers) {
            int in = layer[0];
            int out = layer[1];
            for (int batch : new int[] {16, 32, 64, 128, 256, 512, 1024}) {
                // as in a step: the forward and the filter gradient read the same x, the three the same w or dw
                Buffer x = next(a, batch * in), w = next(b, in * out), dy = next(c, batch * out);
                calls.add(new KernelOp.Gemm(false, false, batch, out, in, 1f, x, w, 0f, next(c, batch * out)));
                calls.add(new KernelOp.Gemm(true, false, in, out, batch, 1f, x, dy, 0f, w));
                calls.add(new KernelOp.Gemm(false, true, batch, in, out, 1f, dy, w, 0f, next(a, batch * in)));
            }
        }
    }

    /**
     * The squared norm of a gradient, a 1×k by k×1 product of the gradient with itself, which the trainer takes of
     * every parameter after each step: from a bias of ten to the MLP's first weights.
     */
    private void norms() {
        for (int k : new int[] {1 << 4, 1 << 8, 1 << 12, 1 << 16, 1 << 18}) {
            Buffer v = next(a, k);
            calls.add(new KernelOp.Gemm(false, true, 1, 1, k, 1f, v, v, 0f, next(c, 1)));
        }
    }

    /**
     * Element-wise kernels from a thousand elements to two million; those that run over a convolution's output
     * also at eight million (32 MB, LeNet's first activations at a batch of about 600), which no cache holds.
     */
    private void elementWise() {
        for (int n : new int[] {1 << 10, 1 << 13, 1 << 16, 1 << 18, 1 << 21}) {
            calls.add(new KernelOp.Axpy(1e-3f, next(a, n), next(c, n), n));
            // -1: the values keep their size however often it runs (a factor under 1 would reach subnormals)
            calls.add(new KernelOp.Scale(-1f, next(c, n), n));
            calls.add(new KernelOp.Add(next(a, n), next(b, n), next(c, n), n));
            calls.add(new KernelOp.Fill(0.5f, next(c, n), n));
            calls.add(
                    new KernelOp.SgdStep(1e-3f, 0.9f, 0f, false, 0f, 1f, false, next(c, n), next(a, n), next(b, n), n));
            calls.add(new KernelOp.AdamStep(
                    1e-3f, 0.9f, 0.999f, 1e-8f, 0f, false, 1, 1f, next(c, n), next(a, n), next(b, n), next(b, n), n));
            activations(n);
            BiasShape dense = new BiasShape(n / 256, 256, 1);
            calls.add(new KernelOp.BiasAdd(next(c, n), next(b, 256), dense));
            calls.add(new KernelOp.BiasAddBackward(next(a, n), next(b, 256), dense));
        }
        activations(LARGEST);
        for (int batch : new int[] {16, 64, 256, 1024, 4096}) {
            int logits = batch * CLASSES;
            calls.add(new KernelOp.SoftmaxCrossEntropyForward(next(a, logits), labels, next(c, batch), batch, CLASSES));
            calls.add(
                    new KernelOp.SoftmaxCrossEntropyBackward(next(a, logits), labels, next(c, logits), batch, CLASSES));
            calls.add(new KernelOp.ArgmaxMatches(next(a, logits), labels, count, batch, CLASSES));
        }
    }

    /**
     * The kernels between a convolution and the next: ReLU, the bias of each plane, LeNet's first pooling, alone
     * and fused with the ReLU, and a ResNet stem's max pooling.
     */
    private void activations(int n) {
        calls.add(new KernelOp.ReluForward(next(a, n), next(c, n), n));
        calls.add(new KernelOp.ReluBackward(next(a, n), next(b, n), next(c, n), n));
        BiasShape planes = new BiasShape(n / 1024, 4, 256); // LeNet's planes have 81 and 676 pixels
        calls.add(new KernelOp.BiasAdd(next(c, planes.length()), next(b, 4), planes));
        calls.add(new KernelOp.BiasAddBackward(next(a, planes.length()), next(b, 4), planes));
        PoolShape pool = new PoolShape(Math.max(1, n / 676), 26, 26, 2, 2);
        calls.add(new KernelOp.AvgPoolForward(next(a, pool.inputLength()), next(c, pool.outputLength()), pool));
        calls.add(new KernelOp.AvgPoolBackward(next(c, pool.outputLength()), next(a, pool.inputLength()), pool));
        calls.add(new KernelOp.ReluAvgPoolForward(next(a, pool.inputLength()), next(c, pool.outputLength()), pool));
        calls.add(new KernelOp.ReluAvgPoolBackward(
                next(a, pool.inputLength()), next(c, pool.outputLength()), next(b, pool.inputLength()), pool));
        // torchvision's ResNet stem pools 3×3 windows at stride 2 with a padding of 1
        PoolShape max = new PoolShape(Math.max(1, n / 676), 26, 26, 3, 2, 1);
        calls.add(new KernelOp.MaxPoolForward(next(a, max.inputLength()), next(c, max.outputLength()), max));
        calls.add(new KernelOp.MaxPoolBackward(
                next(a, max.inputLength()), next(c, max.outputLength()), next(b, max.inputLength()), max));
        batchNorm(planes);
    }

    /** BatchNorm's kernels over {@code s}'s planes, as a training pass runs them, and its running statistics. */
    private void batchNorm(BiasShape s) {
        int n = s.length(), channels = s.channels();
        Buffer x = next(a, n), mean = next(b, channels), var = next(b, channels), gamma = next(b, channels);
        calls.add(new KernelOp.SquaredDeviations(x, mean, next(c, channels), s));
        calls.add(new KernelOp.BatchNormForward(x, mean, var, gamma, next(b, channels), next(c, n), 1e-5f, s));
        calls.add(new KernelOp.BatchNormRunningUpdate(
                mean, var, next(c, channels), next(c, channels), next(c, 1), 0.1f, 2, channels));
        Buffer dy = next(a, n), sumDy = next(c, channels), sumDyXhat = next(c, channels);
        calls.add(new KernelOp.BatchNormBackwardReduce(x, dy, mean, var, sumDy, sumDyXhat, 1e-5f, s));
        calls.add(new KernelOp.BatchNormBackwardData(
                x, dy, mean, var, gamma, sumDy, sumDyXhat, next(c, n), 1e-5f, (long) s.outer() * s.inner(), s));
    }

    /**
     * The next {@code length} elements of scratch buffer {@code buffer} after those the last call got, within its
     * first {@code WINDOW} elements: each call works on memory that the calls just before it did not touch, as
     * each layer of a step has buffers of its own, but that a step's few megabytes would keep in the processor's
     * last cache (with one region for every call, a small call finds its data in a core's own cache and runs
     * faster than in a step; with a new region for every call, from memory, slower). From the start again where
     * the window ends.
     */
    private Buffer next(Buffer buffer, int length) {
        int at = cursors.getOrDefault(buffer, 0);
        if (at + length > WINDOW) {
            at = 0;
        }
        cursors.put(buffer, at + length);
        return buffer.slice(at, length);
    }

    private static Buffer random(Device device, long seed) {
        Random random = new Random(seed);
        float[] values = new float[LARGEST];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextFloat() - 0.5f;
        }
        return device.upload(values);
    }

    @Override
    public void close() {
        for (Buffer buffer : List.of(a, b, c, labels, count)) {
            buffer.close();
        }
    }
}
