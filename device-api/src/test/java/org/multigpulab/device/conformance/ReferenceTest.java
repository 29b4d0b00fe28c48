package org.multigpulab.device.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.multigpulab.device.ConvShape;

/**
 * The float64 reference's convolution with stride and padding: the forward pass is the stride-1 convolution of the
 * input padded with zeros, sampled every stride pixels; the backward passes are its adjoints ({@code <conv(x), dy> =
 * <x, dx> = <w, dw>}), on fresh random inputs.
 */
class ReferenceTest {

    private static final ConvShape S = new ConvShape(2, 3, 9, 8, 4, 3, 3, 2, 1);

    @Test
    void aStridedPaddedConvolutionIsTheUnitOneOfThePaddedInputSampled() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        double[] x = gaussian(random, S.inputLength()), w = gaussian(random, S.filterLength());
        int p = S.padding(), ph = S.height() + 2 * p, pw = S.width() + 2 * p;
        double[] padded = new double[S.batch() * S.inChannels() * ph * pw];
        for (int plane = 0; plane < S.batch() * S.inChannels(); plane++)
            for (int i = 0; i < S.height(); i++)
                for (int j = 0; j < S.width(); j++)
                    padded[(plane * ph + i + p) * pw + j + p] = x[(plane * S.height() + i) * S.width() + j];
        ConvShape unit =
                new ConvShape(S.batch(), S.inChannels(), ph, pw, S.outChannels(), S.kernelHeight(), S.kernelWidth());
        double[] full = Reference.conv2dForward(padded, w, unit), strided = Reference.conv2dForward(x, w, S);
        for (int plane = 0; plane < S.batch() * S.outChannels(); plane++)
            for (int i = 0; i < S.outHeight(); i++)
                for (int j = 0; j < S.outWidth(); j++)
                    assertEquals(
                            full[(plane * unit.outHeight() + i * S.stride()) * unit.outWidth() + j * S.stride()],
                            strided[(plane * S.outHeight() + i) * S.outWidth() + j],
                            1e-12,
                            "seed " + seed);
    }

    @Test
    void theBackwardPassesAreTheForwardPassesAdjoints() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        double[] x = gaussian(random, S.inputLength()), w = gaussian(random, S.filterLength());
        double[] dy = gaussian(random, S.outputLength());
        double forward = dot(Reference.conv2dForward(x, w, S), dy);
        assertEquals(
                forward, dot(x, Reference.conv2dBackwardData(dy, w, S)), 1e-9 * Math.abs(forward), "dx; seed " + seed);
        assertEquals(
                forward,
                dot(w, Reference.conv2dBackwardFilter(x, dy, S)),
                1e-9 * Math.abs(forward),
                "dw; seed " + seed);
    }

    private static double dot(double[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) s += a[i] * b[i];
        return s;
    }

    private static double[] gaussian(Random random, int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) a[i] = random.nextGaussian();
        return a;
    }
}
