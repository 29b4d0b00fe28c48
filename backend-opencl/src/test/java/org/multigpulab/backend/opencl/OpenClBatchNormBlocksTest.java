package org.multigpulab.backend.opencl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.multigpulab.device.Backends;
import org.multigpulab.device.BiasShape;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceRequest;
import org.multigpulab.device.KernelOp;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.conformance.KernelConformanceKit;
import org.multigpulab.device.conformance.Reference;

/**
 * BatchNorm's sums over channels of more than one block ({@link OpenClKernels#BN_BLOCK} values), whose work-groups'
 * partial sums {@code sum_partials} adds: the conformance kit's shapes all fit one block. Against the float64
 * reference within the kit's tolerance, and the same bits on a second call.
 */
class OpenClBatchNormBlocksTest {

    static Stream<BiasShape> shapes() {
        return Stream.of(
                new BiasShape(7, 3, 1000), // two blocks, the second a part
                new BiasShape(32, 8, 784), // ResNet's first stage at a batch of 32: seven blocks and a part
                new BiasShape(64, 2, 4096), // whole blocks, 64 a channel
                new BiasShape(256, 1, 784)); // a batch of 256 of ResNet's first stage: 49 blocks
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void sumsOverManyBlocksMatchReferenceAndRepeatTheirBits(BiasShape s) {
        OpenClConformanceTest.requireOpenCl();
        assertTrue((long) s.outer() * s.inner() > OpenClKernels.BN_BLOCK, "more than one block");
        Random random = new Random(s.hashCode());
        int c = s.channels();
        float[] x = gaussian(random, s.length()), dy = gaussian(random, s.length()), mean = gaussian(random, c);
        float[] var = gaussian(random, c);
        for (int i = 0; i < x.length; i++) {
            x[i] += 3; // values off zero, whose deviations from the mean are what counts
        }
        for (int i = 0; i < c; i++) {
            var[i] = var[i] * var[i] + 0.01f;
        }
        float eps = 1e-5f;
        try (Device device = Backends.open("opencl", DeviceRequest.of(1)).getFirst()) {
            Kernels k = device.kernels();
            Buffer xb = device.upload(x), dyb = device.upload(dy), meanb = device.upload(mean);
            Buffer varb = device.upload(var);
            // a smaller scratch first, which the calls below grow: one channel's blocks
            BiasShape one = new BiasShape(s.outer(), 1, s.inner());
            k.launch(new KernelOp.SquaredDeviations(
                    xb.slice(0, one.length()), meanb.slice(0, 1), device.allocate(1), one));
            float[][] first = null;
            for (int call = 0; call < 2; call++) {
                Buffer m2 = device.allocate(c), sumDy = device.allocate(c), sumDyXhat = device.allocate(c);
                k.launch(new KernelOp.SquaredDeviations(xb, meanb, m2, s));
                k.launch(new KernelOp.BatchNormBackwardReduce(xb, dyb, meanb, varb, sumDy, sumDyXhat, eps, s));
                float[][] got = {device.download(m2), device.download(sumDy), device.download(sumDyXhat)};
                if (first == null) {
                    first = got;
                } else {
                    for (int i = 0; i < got.length; i++) {
                        assertArrayEquals(first[i], got[i], "call 2 against call 1, sum " + i + " of " + s);
                    }
                }
            }
            double[] wideX = wide(x), wideMean = wide(mean);
            double[][] sums = Reference.batchNormBackwardReduce(wideX, wide(dy), wideMean, wide(var), eps, s);
            assertClose("squared_deviations " + s, Reference.squaredDeviations(wideX, wideMean, s), first[0]);
            assertClose("batch_norm_backward_reduce sum_dy " + s, sums[0], first[1]);
            assertClose("batch_norm_backward_reduce sum_dy_xhat " + s, sums[1], first[2]);
        }
    }

    private static float[] gaussian(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    private static double[] wide(float[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i];
        }
        return d;
    }

    /** The kit's bound: max |got − ref| ≤ TOLERANCE · max |ref|. */
    private static void assertClose(String what, double[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, what);
        double scale = 0, worst = 0;
        for (int i = 0; i < expected.length; i++) {
            scale = Math.max(scale, Math.abs(expected[i]));
            worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
        }
        double bound = KernelConformanceKit.TOLERANCE * scale;
        assertTrue(worst <= bound, what + ": max error " + worst + " exceeds " + bound);
    }
}
