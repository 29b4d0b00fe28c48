package org.multigpulab.backend.djl;

import java.util.Optional;
import java.util.Random;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.conformance.Reference;

/**
 * A check run when a {@code djl} device opens: LeNet's two convolutions at a shard of 32 images, forward and
 * backward to the data, on random inputs against the float64 {@link Reference} that the conformance kit uses.
 * libtorch 2.7.1's float32 convolution through oneDNN has been seen 10–15 % off, or NaN, on a Zen 5 processor; training on it would look plausible
 * and be wrong. {@link DjlBackend} then turns oneDNN off and checks again, and refuses to train if that fails.
 */
final class ConvolutionSelfTest {

    /** Float32 sums of up to 500 terms stay well inside this share of the largest value. */
    static final double TOLERANCE = 1e-4;
    private static final ConvShape[] SHAPES = {
            new ConvShape(32, 1, 28, 28, 20, 3, 3), new ConvShape(32, 20, 12, 12, 50, 5, 5)};

    private ConvolutionSelfTest() {
    }

    /** What is wrong with {@code device}'s convolutions, if anything. */
    static Optional<String> failure(Device device) {
        Random random = new Random(20261201);
        for (ConvShape s : SHAPES) {
            float[] x = random(random, s.inputLength()), w = random(random, s.filterLength());
            float[] dy = random(random, s.outputLength());
            try (Buffer xb = device.upload(x); Buffer wb = device.upload(w); Buffer yb = device.allocate(s.outputLength());
                 Buffer dyb = device.upload(dy); Buffer dxb = device.allocate(s.inputLength())) {
                device.kernels().conv2dForward(xb, wb, yb, s);
                device.kernels().conv2dBackwardData(dyb, wb, dxb, s);
                Optional<String> wrong = compare("forward", s, device.download(yb),
                        Reference.conv2dForward(Reference.wide(x), Reference.wide(w), s))
                        .or(() -> compare("backward to the data", s, device.download(dxb),
                                Reference.conv2dBackwardData(Reference.wide(dy), Reference.wide(w), s)));
                if (wrong.isPresent()) {
                    return wrong;
                }
            }
        }
        return Optional.empty();
    }

    private static float[] random(Random random, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }

    private static Optional<String> compare(String what, ConvShape s, float[] got, double[] want) {
        double scale = 0, worst = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            double error = Math.abs(got[i] - want[i]);
            worst = Double.isNaN(error) ? Double.POSITIVE_INFINITY : Math.max(worst, error);
        }
        if (worst > TOLERANCE * scale) {
            return Optional.of(String.format(java.util.Locale.ROOT, "its float32 convolution (%s, %d→%d channels)"
                    + " is off by %.2g of the largest value against a float64 reference (allowed %.0e)", what,
                    s.inChannels(), s.outChannels(), worst / scale, TOLERANCE));
        }
        return Optional.empty();
    }
}
