package org.multigpulab.core.autograd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelTime;

/**
 * The tape's planner fuses a first convolution, its ReLU and pooling only when nothing stands between them: with an
 * op between the convolution and the ReLU (adding zeros), the separate kernels run, and the pooled output and the
 * filter's gradient are the same numbers, within the float32 rounding of the fused kernel's other summing order.
 */
class FusionPlannerTest {

    private static final int N = 3, C = 2, H = 10, W = 10, O = 4, K = 3;

    @Test
    void anOpBetweenConvolutionAndReluGivesTheSeparateKernelsAndTheSameNumbers() {
        long seed = System.nanoTime();
        Pass fused = pass(seed, false), separate = pass(seed, true);
        String replay = "; seed " + seed;

        assertEquals(Map.of("conv2d_bias_relu_avg_pool_forward", 1L), fused.kernels, "fused" + replay);
        assertEquals(
                Map.of("conv2d_bias_forward", 1L, "add", 1L, "relu_avg_pool_forward", 1L),
                separate.kernels,
                "with an add between" + replay);
        assertClose(separate.pooled, fused.pooled, "pooled output" + replay);
        assertClose(separate.filterGrad, fused.filterGrad, "filter gradient" + replay);
    }

    private static Map<String, Long> launches(Device device) {
        return device.stats().kernelTimes().stream()
                .collect(Collectors.groupingBy(KernelTime::kernel, Collectors.summingLong(KernelTime::launches)));
    }

    private static float[] gaussian(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        double largest = 0;
        for (float v : expected) {
            largest = Math.max(largest, Math.abs(v));
        }
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5 * largest, what + " at " + i);
        }
    }

    private record Pass(Map<String, Long> kernels, float[] pooled, float[] filterGrad) {}

    /** pool(relu(conv(x))), or pool(relu(conv(x) + 0)) with {@code addBetween}, forward and backward. */
    private static Pass pass(long seed, boolean addBetween) {
        Random random = new Random(seed);
        Device device = Synthetic.sim(1).getFirst();
        try (Workspace workspace = new Workspace(device)) {
            Tensor x = Tensor.of(device.upload(gaussian(random, N * C * H * W)), false, N, C, H, W);
            Tensor w = Tensor.parameter(
                    device.upload(gaussian(random, O * C * K * K)), device.allocate(O * C * K * K), O, C, K, K);
            Tensor b = Tensor.parameter(device.upload(gaussian(random, O)), device.allocate(O), O);
            Buffer zeros = device.upload(new float[N * O * (H - K + 1) * (W - K + 1)]);
            try (Tape tape = Tape.training(workspace)) {
                Map<String, Long> before = launches(device);
                Tensor h = Ops.conv2d(tape, x, w, b);
                if (addBetween) {
                    h = Ops.add(tape, h, Tensor.of(zeros, false, h.shape()));
                }
                Tensor y = Ops.avgPool2d(tape, Ops.relu(tape, h), 2, 2); // [N, O, 4, 4]
                float[] pooled = device.download(tape.data(y));
                Map<String, Long> forward = launches(device);
                before.forEach((kernel, n) -> forward.merge(kernel, -n, Long::sum));
                forward.values().removeIf(n -> n == 0);
                // The pooled maps as logits over 64 classes, all labelled 0: a loss to differentiate
                Tensor logits = y.reshape(N, y.size() / N);
                Tensor labels = Tensor.of(device.upload(new float[N]), false, N);
                tape.backward(Ops.crossEntropySum(tape, logits, labels));
                return new Pass(forward, pooled, device.download(w.grad()));
            }
        } finally {
            device.close();
        }
    }
}
