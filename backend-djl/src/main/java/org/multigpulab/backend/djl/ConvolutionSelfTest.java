package org.multigpulab.backend.djl;

import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.ConvShape;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Conv2dBackwardData;
import org.multigpulab.device.KernelOp.Conv2dBackwardFilter;
import org.multigpulab.device.KernelOp.Conv2dForward;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.conformance.Reference;

/**
 * A check run when a {@code djl} device opens: LeNet's two convolutions and two of ResNet-18's (stride 2, with and
 * without padding) at a shard of 32 images, forward and backward to the data and to the filter, on random inputs against the float64 {@link Reference} that the
 * conformance kit uses. libtorch 2.7.1's float32 convolution through oneDNN has been seen off by a tenth of the
 * largest value or more, or NaN, on a Zen 5 processor; training on it would look plausible and be wrong.
 * {@link ConvolutionGate} decides what follows from a failure.
 */
final class ConvolutionSelfTest {

    /**
     * Float32 sums of up to 2·10⁴ terms (conv1's filter gradient sums 32 images of 26×26) stay well inside this
     * share of the largest value.
     */
    static final double TOLERANCE = 1e-4;
    /**
     * Images per shard: the batch at which oneDNN's fault on Zen 5 was seen and caught (whether a smaller one
     * shows it is not known), few enough to keep the test quick: most of its time is the float64 reference's.
     */
    private static final int SHARD = 32;

    private static final ConvShape[] SHAPES = {
        new ConvShape(SHARD, 1, 28, 28, 20, 3, 3), // conv1: [32, 1, 28, 28] → [32, 20, 26, 26]
        new ConvShape(SHARD, 20, 13, 13, 50, 5, 5), // conv2: [32, 20, 13, 13] → [32, 50, 9, 9]
        // ResNet-18's: a stage's first 3×3 convolution, stride 2 and padding 1, and its 1×1 shortcut of stride 2,
        // on odd planes (15×15 → 8×8) and few channels to keep the float64 reference quick
        new ConvShape(SHARD, 16, 15, 15, 32, 3, 3, 2, 1),
        new ConvShape(SHARD, 16, 15, 15, 32, 1, 1, 2, 0)
    };

    private ConvolutionSelfTest() {}

    /** What is wrong with {@code device}'s convolutions, if anything: which pass, on which shape, by how much. */
    static Optional<String> failure(Device device) {
        Random random = new Random(20261201);
        Kernels k = device.kernels();
        for (ConvShape s : SHAPES) {
            float[] x = random(random, s.inputLength()), w = random(random, s.filterLength());
            float[] dy = random(random, s.outputLength());
            try (Buffer xb = device.upload(x);
                    Buffer wb = device.upload(w);
                    Buffer dyb = device.upload(dy);
                    Buffer yb = device.allocate(s.outputLength());
                    Buffer dxb = device.allocate(s.inputLength());
                    Buffer dwb = device.allocate(s.filterLength())) {
                k.launch(new Conv2dForward(xb, wb, yb, s));
                k.launch(new Conv2dBackwardData(dyb, wb, dxb, s));
                k.launch(new Conv2dBackwardFilter(xb, dyb, dwb, s));
                double[] xd = Reference.wide(x), wd = Reference.wide(w), dyd = Reference.wide(dy);
                Optional<String> wrong = compare("forward", s, device.download(yb), Reference.conv2dForward(xd, wd, s))
                        .or(() -> compare(
                                "backward to the data",
                                s,
                                device.download(dxb),
                                Reference.conv2dBackwardData(dyd, wd, s)))
                        .or(() -> compare(
                                "backward to the filter",
                                s,
                                device.download(dwb),
                                Reference.conv2dBackwardFilter(xd, dyd, s)));
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

    private static Optional<String> compare(String pass, ConvShape s, float[] got, double[] want) {
        double scale = 0, worst = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            double error = Math.abs(got[i] - want[i]);
            if (Double.isNaN(error)) {
                return Optional.of(convolution(pass, s) + " gives NaN where a float64 reference gives numbers");
            }
            worst = Math.max(worst, error);
        }
        if (worst > TOLERANCE * scale) {
            return Optional.of(String.format(
                    Locale.ROOT,
                    "%s is off by %.2g of the largest value against a float64" + " reference (allowed %.0e)",
                    convolution(pass, s),
                    worst / scale,
                    TOLERANCE));
        }
        return Optional.empty();
    }

    /**
     * Names the pass and the shape, as in "its float32 convolution (forward, 20→50 channels, 5×5 on 13×13)" or,
     * strided or padded, "(forward, 16→32 channels, 3×3 stride 2 padding 1 on 15×15)".
     */
    private static String convolution(String pass, ConvShape s) {
        return String.format(
                Locale.ROOT,
                "its float32 convolution (%s, %d→%d channels, %d×%d%s on %d×%d)",
                pass,
                s.inChannels(),
                s.outChannels(),
                s.kernelHeight(),
                s.kernelWidth(),
                s.stride() == 1 && s.padding() == 0 ? "" : " stride " + s.stride() + " padding " + s.padding(),
                s.height(),
                s.width());
    }
}
