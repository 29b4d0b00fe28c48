package org.multigpulab.backend.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.PoolShape;

/**
 * The kernel calls the host calibration times: every op at two or three sizes. Convolutions and GEMMs are
 * measured at the lab's own layers (LeNet's two convolutions, the dense layers of LeNet and the MLP), at a
 * shard of 8 or 16 images to 256: their speed depends on the shape as much as on the work (how a shape fills the
 * vector registers and the caches), which a cost per FLOP and per byte cannot tell from other shapes. A model
 * with other layers is charged by the same fit, its time then a guess from shapes near it; element-wise kernels
 * depend on their length only, measured from 4 K to 2 M elements.
 */
final class CalibrationCases implements AutoCloseable {

    /** The largest buffer any case needs, in floats. */
    private static final int LARGEST = 1 << 22;

    private static final int CLASSES = 10;

    private final Buffer a;
    private final Buffer b;
    private final Buffer c;
    private final Buffer labels;
    private final Buffer count;
    private final List<KernelOp.Call> calls = new ArrayList<>();

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
        elementWise();
    }

    List<KernelOp.Call> calls() {
        return calls;
    }

    /** LeNet's two convolutions: nine taps per output from one channel, and 500 taps from twenty. */
    private void convolutions() {
        ConvShape deep = new ConvShape(1, 20, 13, 13, 50, 5, 5);
        ConvShape shallow = new ConvShape(1, 1, 28, 28, 20, 3, 3);
        for (ConvShape shape : List.of(deep, shallow)) {
            for (int batch : new int[] {8, 64, 256}) {
                ConvShape s = shape.withBatch(batch);
                calls.add(new KernelOp.Conv2dForward(a, b, c, s));
                calls.add(new KernelOp.Conv2dBackwardData(c, b, a, s));
                calls.add(new KernelOp.Conv2dBackwardFilter(a, c, b, s));
            }
        }
    }

    /**
     * The dense layers of LeNet (800→128→10) and of the MLP (784→256→10), each product the training takes: y = x·w
     * (NN), dw = xᵀ·dy (TN), dx = dy·wᵀ (NT), at a small, a middle and a large batch (where x no longer fits
     * in a core's cache).
     */
    private void gemms() {
        int[][] layers = {{800, 128}, {128, 10}, {784, 256}, {256, 10}};
        for (int[] layer : layers) {
            int in = layer[0];
            int out = layer[1];
            for (int batch : new int[] {16, 256, 1024}) {
                calls.add(new KernelOp.Gemm(false, false, batch, out, in, 1f, a, b, 0f, c));
                calls.add(new KernelOp.Gemm(true, false, in, out, batch, 1f, a, b, 0f, c));
                calls.add(new KernelOp.Gemm(false, true, batch, in, out, 1f, a, b, 0f, c));
            }
        }
    }

    private void elementWise() {
        for (int n : new int[] {1 << 12, 1 << 16, 1 << 21}) {
            calls.add(new KernelOp.ReluForward(a, c, n));
            calls.add(new KernelOp.ReluBackward(a, b, c, n));
            calls.add(new KernelOp.Axpy(1e-3f, a, c, n));
            // -1: the values keep their size however often it runs (a factor under 1 would reach subnormals)
            calls.add(new KernelOp.Scale(-1f, c, n));
            calls.add(new KernelOp.Add(a, b, c, n));
            calls.add(new KernelOp.Fill(0.5f, c, n));
            BiasShape bias = new BiasShape(n / 1024, 16, 64);
            calls.add(new KernelOp.BiasAdd(c, b, bias));
            calls.add(new KernelOp.BiasAddBackward(a, b, bias));
            PoolShape pool = new PoolShape(n / 576, 24, 24, 2, 2);
            calls.add(new KernelOp.AvgPoolForward(a, c, pool));
            calls.add(new KernelOp.AvgPoolBackward(c, a, pool));
        }
        for (int batch : new int[] {16, 512, 4096}) {
            calls.add(new KernelOp.SoftmaxCrossEntropyForward(a, labels, c, batch, CLASSES));
            calls.add(new KernelOp.SoftmaxCrossEntropyBackward(a, labels, c, batch, CLASSES));
            calls.add(new KernelOp.ArgmaxMatches(a, labels, count, batch, CLASSES));
        }
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
