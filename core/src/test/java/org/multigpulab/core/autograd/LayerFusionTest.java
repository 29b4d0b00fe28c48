package org.multigpulab.core.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelTime;

/**
 * LeNet's first convolution, its ReLU and pooling run as one op ({@code conv2d_bias_relu_avg_pool_forward} and
 * its backward), the second's ReLU and pooling as another ({@code relu_avg_pool_forward}), unless something
 * reads the first ReLU's output or an op stands between them; either way a step gives the same logits and gradients: the same bits but for the
 * first layer's, whose sums the fused op may take in another order.
 */
class LayerFusionTest {

    private static final int BATCH = 4;

    /** The first layer's gradients against the separate ops', relative to their largest: float32 rounding. */
    private static final double REORDERED = 1e-5;

    @Test
    void fusedLayersGiveTheLogitsAndGradientsOfTheSeparateOps() {
        long seed = System.nanoTime();
        Step fused = step(seed, false);
        Step separate = step(seed, true);
        for (int p = 0; p < fused.grads.size(); p++) {
            String name = LeNet.SPECS.get(p).name();
            String what = "gradient " + name + " fused against separate; seed " + seed;
            if (name.equals("W1") || name.equals("b1")) {
                float[] expected = separate.grads.get(p);
                double largest = 0;
                for (float v : expected) {
                    largest = Math.max(largest, Math.abs(v));
                }
                for (int i = 0; i < expected.length; i++) {
                    assertEquals(expected[i], fused.grads.get(p)[i], REORDERED * largest, what + " at " + i);
                }
            } else {
                assertArrayEquals(separate.grads.get(p), fused.grads.get(p), what);
            }
        }
        assertArrayEquals(separate.logits, fused.logits, "logits; seed " + seed);

        // fused: the first layer in one op, the second's ReLU and pooling in another, the dense layer's ReLU alone
        assertEquals(
                Map.of(
                        "conv2d_bias_relu_avg_pool_forward", 1L,
                        "conv2d_bias_forward", 1L,
                        "relu_avg_pool_forward", 1L,
                        "relu_forward", 1L),
                fused.launches(forward()));
        assertEquals(
                Map.of(
                        "conv2d_bias_relu_avg_pool_backward", 1L,
                        "relu_avg_pool_backward", 1L,
                        "conv2d_backward_filter", 1L,
                        "conv2d_backward_data", 1L,
                        "relu_backward", 1L),
                fused.launches(backward()));
        // the observer read h1_activation: the first layer ran as its three ops each way
        assertEquals(
                Map.of(
                        "conv2d_bias_forward",
                        2L,
                        "relu_forward",
                        2L,
                        "avg_pool_forward",
                        1L,
                        "relu_avg_pool_forward",
                        1L),
                separate.launches(forward()));
        assertEquals(
                Map.of(
                        "relu_avg_pool_backward", 1L,
                        "avg_pool_backward", 1L,
                        "relu_backward", 2L,
                        "conv2d_backward_filter", 2L,
                        "conv2d_backward_data", 1L),
                separate.launches(backward()));
    }

    private static Predicate<String> forward() {
        return k -> k.endsWith("_forward") && !k.startsWith("softmax");
    }

    private static Predicate<String> backward() {
        return k -> k.contains("_backward") && !k.startsWith("softmax") && !k.startsWith("bias");
    }

    /** One forward and backward pass of LeNet; with {@code readActivation}, h1_activation is read as it is made. */
    private static Step step(long seed, boolean readActivation) {
        Random random = new Random(seed);
        List<HostTensor> init = new LeNet()
                .initialState(3).stream()
                        .map(p -> {
                            float[] v = new float[p.size()];
                            for (int i = 0; i < v.length; i++) {
                                v[i] = (float) random.nextGaussian() * 0.1f;
                            }
                            return new HostTensor(p.name(), p.shape(), v);
                        })
                        .toList();
        HostBatch batch = new BatchIterator(Synthetic.images("t", BATCH, 5), BATCH).next();
        Device device = Synthetic.sim(1).getFirst();
        try (Replica replica = Replica.getParams(init, device)) {
            Tensor x = Tensor.of(device.upload(batch.x()), false, BATCH, 1, 28, 28);
            Tensor y = Tensor.of(device.upload(batch.y()), false, BATCH);
            float[] logits;
            try (Tape tape = Tape.training(replica.workspace())) {
                Tensor yHat = new LeNet().forward(tape, x, replica.params(), (name, t) -> {
                    if (readActivation && name.equals("h1_activation")) {
                        tape.data(t);
                    }
                });
                logits = device.download(yHat.data());
                tape.backward(Ops.crossEntropySum(tape, yHat, y));
            }
            List<float[]> grads = replica.params().stream()
                    .map(p -> device.download(p.grad()))
                    .toList();
            return new Step(logits, grads, device.stats().kernelTimes());
        } finally {
            device.close();
        }
    }

    private record Step(float[] logits, List<float[]> grads, List<KernelTime> kernels) {
        Map<String, Long> launches(Predicate<String> which) {
            return kernels.stream()
                    .filter(k -> which.test(k.kernel()))
                    .collect(Collectors.groupingBy(KernelTime::kernel, Collectors.summingLong(KernelTime::launches)));
        }
    }
}
