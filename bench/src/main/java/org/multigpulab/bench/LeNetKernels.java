package org.multigpulab.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvPoolShape;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.KernelOp.AvgPoolBackward;
import org.multigpulab.device.KernelOp.AvgPoolForward;
import org.multigpulab.device.KernelOp.Axpy;
import org.multigpulab.device.KernelOp.BiasAdd;
import org.multigpulab.device.KernelOp.BiasAddBackward;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dBiasForward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.Conv2dBiasReluAvgPoolForward;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.KernelOp.Gemm;
import org.multigpulab.device.KernelOp.ReluAvgPoolBackward;
import org.multigpulab.device.KernelOp.ReluAvgPoolForward;
import org.multigpulab.device.KernelOp.ReluBackward;
import org.multigpulab.device.KernelOp.ReluForward;
import org.multigpulab.device.PoolShape;

/**
 * Every kernel call of one LeNet training step at a batch of 256 (conv2's and the dense layer's also at a shard of
 * 32), by name, with random operands on one device: each a {@link KernelOp.Call}, which runs it ({@code launch})
 * and says the work it does, for benchmarks.
 */
final class LeNetKernels {

    static final int BATCH = 256;
    /** One of 8 logical GPUs' share of a batch. */
    static final int SHARD = BATCH / 8;

    static final ConvShape CONV1 = new ConvShape(BATCH, 1, 28, 28, 20, 3, 3);
    static final ConvShape CONV2 = new ConvShape(BATCH, 20, 13, 13, 50, 5, 5);
    static final PoolShape POOL1 = new PoolShape(BATCH * 20, 26, 26, 2, 2);
    static final PoolShape POOL2 = new PoolShape(BATCH * 50, 9, 9, 2, 2);
    static final BiasShape BIAS1 = CONV1.bias();

    static Map<String, KernelOp.Call> on(Device d) {
        Random random = new Random(1);
        Buffer x1 = random(d, CONV1.inputLength(), random), w1 = random(d, CONV1.filterLength(), random);
        Buffer y1 = random(d, CONV1.outputLength(), random), p1 = random(d, POOL1.outputLength(), random);
        Buffer w2 = random(d, CONV2.filterLength(), random), y2 = random(d, CONV2.outputLength(), random);
        Buffer x2 = random(d, CONV2.inputLength(), random), f = random(d, BATCH * 800, random);
        Buffer w3 = random(d, 800 * 128, random), h = random(d, BATCH * 128, random);
        Buffer b1 = random(d, 20, random), tmp1 = random(d, CONV1.outputLength(), random);
        Buffer b2 = random(d, 50, random);
        Map<String, KernelOp.Call> calls = new LinkedHashMap<>();
        calls.put("conv1_forward", new Conv2dForward(x1, w1, y1, CONV1));
        calls.put("conv1_bias_forward", new Conv2dBiasForward(x1, w1, b1, y1, CONV1));
        calls.put("conv1_backward_filter", new Conv2dBackwardFilter(x1, y1, w1, CONV1));
        calls.put("conv2_forward", new Conv2dForward(x2, w2, y2, CONV2));
        calls.put("conv2_bias_forward", new Conv2dBiasForward(x2, w2, b2, y2, CONV2));
        calls.put("conv2_backward_data", new Conv2dBackwardData(y2, w2, x2, CONV2));
        calls.put("conv2_backward_filter", new Conv2dBackwardFilter(x2, y2, w2, CONV2));
        calls.put("dense3_forward", new Gemm(false, false, BATCH, 128, 800, 1f, f, w3, 0f, h));
        calls.put("dense3_backward_weight", new Gemm(true, false, 800, 128, BATCH, 1f, f, h, 0f, w3));
        calls.put("dense3_backward_data", new Gemm(false, true, BATCH, 800, 128, 1f, h, w3, 0f, f));
        // conv2 and the dense layer at a shard of 32, what each of 8 logical GPUs gets of a batch of 256
        ConvShape conv2Shard = CONV2.withBatch(SHARD);
        Buffer x2Shard = x2.slice(0, conv2Shard.inputLength()), y2Shard = y2.slice(0, conv2Shard.outputLength());
        calls.put("conv2_forward_32", new Conv2dForward(x2Shard, w2, y2Shard, conv2Shard));
        calls.put("conv2_backward_data_32", new Conv2dBackwardData(y2Shard, w2, x2Shard, conv2Shard));
        calls.put("conv2_backward_filter_32", new Conv2dBackwardFilter(x2Shard, y2Shard, w2, conv2Shard));
        Buffer f32 = f.slice(0, SHARD * 800), h32 = h.slice(0, SHARD * 128);
        calls.put("dense3_forward_32", new Gemm(false, false, SHARD, 128, 800, 1f, f32, w3, 0f, h32));
        calls.put("dense3_backward_weight_32", new Gemm(true, false, 800, 128, SHARD, 1f, f32, h32, 0f, w3));
        calls.put("dense3_backward_data_32", new Gemm(false, true, SHARD, 800, 128, 1f, h32, w3, 0f, f32));
        calls.put("bias1_add", new BiasAdd(y1, b1, BIAS1));
        calls.put("bias1_backward", new BiasAddBackward(y1, b1, BIAS1));
        calls.put("relu1_forward", new ReluForward(y1, tmp1, CONV1.outputLength()));
        calls.put("relu1_backward", new ReluBackward(y1, tmp1, tmp1, CONV1.outputLength()));
        calls.put("pool1_forward", new AvgPoolForward(y1, p1, POOL1));
        calls.put("pool1_backward", new AvgPoolBackward(p1, y1, POOL1));
        calls.put("pool2_forward", new AvgPoolForward(y2, f, POOL2));
        calls.put("pool2_backward", new AvgPoolBackward(f, y2, POOL2));
        // ReLU and pooling fused, as training runs them
        calls.put("relu_pool1_forward", new ReluAvgPoolForward(y1, p1, POOL1));
        calls.put("relu_pool1_backward", new ReluAvgPoolBackward(y1, p1, tmp1, POOL1));
        calls.put("relu_pool2_forward", new ReluAvgPoolForward(y2, f, POOL2));
        calls.put("relu_pool2_backward", new ReluAvgPoolBackward(y2, f, tmp1.slice(0, POOL2.inputLength()), POOL2));
        // the first layer in one op each way, as training runs it
        ConvPoolShape layer1 = new ConvPoolShape(CONV1, 2, 2);
        Buffer b1Grad = random(d, 20, random), w1Grad = random(d, CONV1.filterLength(), random);
        calls.put("layer1_forward", new Conv2dBiasReluAvgPoolForward(x1, w1, b1, p1, layer1));
        calls.put("layer1_backward", new Conv2dBiasReluAvgPoolBackward(x1, w1, b1, p1, w1Grad, b1Grad, layer1));
        // evaluation's second layer: its input needs no gradient there, so conv2, bias, ReLU and pooling are one op
        ConvPoolShape layer2 = new ConvPoolShape(CONV2, 2, 2);
        calls.put("layer2_forward", new Conv2dBiasReluAvgPoolForward(x2, w2, b2, f, layer2));
        calls.put("relu3_forward", new ReluForward(h, random(d, BATCH * 128, random), BATCH * 128));
        // the trainer's check that the summed gradients are finite: a squared norm, 1×k by k×1, per parameter
        calls.put("norm_w3", new Gemm(false, true, 1, 1, 800 * 128, 1f, w3, w3, 0f, b2.slice(0, 1)));
        calls.put("sgd_w3_axpy", new Axpy(-1e-6f, h.slice(0, 128 * 128), w3.slice(0, 128 * 128), 128 * 128));
        return calls;
    }

    private static Buffer random(Device d, int n, Random random) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) random.nextGaussian() * 0.1f;
        }
        return d.upload(v);
    }
}
