package org.multigpulab.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fit recovers the costs that made its samples, and never gives a negative one. */
class KernelCostTest {

    @Test
    void recoversFixedPerFlopAndPerByteCostsFromNoisySamples() {
        long seed = System.nanoTime();
        System.out.println("KernelCostTest seed " + seed);
        Random random = new Random(seed);
        for (int trial = 0; trial < 50; trial++) {
            KernelCost truth = new KernelCost(
                    1e-6 * (1 + 20 * random.nextDouble()),
                    1 / (1e9 * (5 + 200 * random.nextDouble())),
                    1 / (1e9 * (2 + 50 * random.nextDouble())));
            List<KernelCost.Sample> samples = new ArrayList<>();
            // as the calibration measures a kernel: at sizes from where the fixed cost dominates to where it is
            // lost, in a shape that does many FLOPs per byte and one that does few
            for (int i = 0; i < 6; i++) {
                long bytes = (long) (1e3 * Math.pow(1e6, (i / 2 + random.nextDouble()) / 3));
                long flops = (long) (bytes * (i % 2 == 0 ? 50 : 0.5));
                // 1 % of noise, as a quiet machine gives
                double noise = 1 + 0.01 * (2 * random.nextDouble() - 1);
                samples.add(new KernelCost.Sample(flops, bytes, truth.seconds(flops, bytes) * noise));
            }
            KernelCost fitted = KernelCost.fit(samples);
            assertTrue(
                    KernelCost.relativeError(samples, fitted) < 0.02,
                    "seed " + seed + ": the fit is off its own samples by more than their noise: " + fitted);
            for (int i = 0; i < 5; i++) {
                long bytes = (long) (1e3 * Math.pow(1e6, random.nextDouble()));
                long flops = (long) (bytes * Math.pow(100, random.nextDouble()) / 2);
                double expected = truth.seconds(flops, bytes);
                assertEquals(
                        expected,
                        fitted.seconds(flops, bytes),
                        0.1 * expected,
                        "seed " + seed + ": a new call's time, true " + truth + ", fitted " + fitted);
            }
        }
    }

    @Test
    void keepsEveryCostNonNegativeWhereTheDataCannotTellFlopsFromBytes() {
        // an element-wise kernel: one FLOP per 8 bytes, whatever its size; 2 µs per call and 20 GB/s
        List<KernelCost.Sample> samples = new ArrayList<>();
        for (int n : new int[] {1 << 12, 1 << 16, 1 << 21}) {
            samples.add(new KernelCost.Sample(n, 8L * n, 2e-6 + 8.0 * n / 20e9));
        }
        KernelCost fitted = KernelCost.fit(samples);
        assertTrue(
                fitted.fixedSec() >= 0 && fitted.secPerFlop() >= 0 && fitted.secPerByte() >= 0,
                "a negative cost: " + fitted);
        assertTrue(KernelCost.relativeError(samples, fitted) < 1e-6, fitted.toString());
        assertEquals(2e-6, fitted.fixedSec(), 1e-9, fitted.toString());
    }
}
