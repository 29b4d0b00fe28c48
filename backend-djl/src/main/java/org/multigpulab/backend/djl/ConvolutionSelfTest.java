package org.multigpulab.backend.djl;

import java.util.Optional;
import java.util.Random;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;

/**
 * A check run when a {@code djl} device opens: LeNet's two convolutions at a shard of 32 images, forward and
 * backward to the data, on random inputs against a float64 loop here. libtorch 2.7.1's float32 convolution
 * through oneDNN has been seen 10–15 % off, or NaN, on a Zen 5 processor; training on it would look plausible
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
                Optional<String> wrong = compare("forward", s, device.download(yb), forward(x, w, s))
                        .or(() -> compare("backward to the data", s, device.download(dxb), backwardData(dy, w, s)));
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

    private static double[] forward(float[] x, float[] w, ConvShape s) {
        double[] y = new double[s.outputLength()];
        for (int n = 0; n < s.batch(); n++)
            for (int o = 0; o < s.outChannels(); o++)
                for (int i = 0; i < s.outHeight(); i++)
                    for (int j = 0; j < s.outWidth(); j++) {
                        double sum = 0;
                        for (int c = 0; c < s.inChannels(); c++)
                            for (int p = 0; p < s.kernelHeight(); p++)
                                for (int q = 0; q < s.kernelWidth(); q++)
                                    sum += (double) x[((n * s.inChannels() + c) * s.height() + i + p) * s.width() + j + q]
                                            * w[((o * s.inChannels() + c) * s.kernelHeight() + p) * s.kernelWidth() + q];
                        y[((n * s.outChannels() + o) * s.outHeight() + i) * s.outWidth() + j] = sum;
                    }
        return y;
    }

    private static double[] backwardData(float[] dy, float[] w, ConvShape s) {
        double[] dx = new double[s.inputLength()];
        for (int n = 0; n < s.batch(); n++)
            for (int o = 0; o < s.outChannels(); o++)
                for (int i = 0; i < s.outHeight(); i++)
                    for (int j = 0; j < s.outWidth(); j++) {
                        double g = dy[((n * s.outChannels() + o) * s.outHeight() + i) * s.outWidth() + j];
                        for (int c = 0; c < s.inChannels(); c++)
                            for (int p = 0; p < s.kernelHeight(); p++)
                                for (int q = 0; q < s.kernelWidth(); q++)
                                    dx[((n * s.inChannels() + c) * s.height() + i + p) * s.width() + j + q] +=
                                            g * w[((o * s.inChannels() + c) * s.kernelHeight() + p) * s.kernelWidth() + q];
                    }
        return dx;
    }
}
