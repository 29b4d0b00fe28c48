package org.multigpulab.lessons.bench;

import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The processor's FP32 peak as Java reaches it: on every core at once, twelve independent chains of vector
 * fused multiply-adds on registers only, no memory traffic. What a perfect kernel could do here; a kernel's
 * share of it says how far from the hardware it is.
 */
public final class PeakFlops {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int CHAINS = 12;
    private static final long ROUNDS = 20_000_000;

    private PeakFlops() {
    }

    /** FLOP/s of all cores together, the best of three runs. */
    public static double measure() {
        double best = 0;
        for (int run = 0; run < 3; run++) {
            best = Math.max(best, once());
        }
        return best;
    }

    private static double once() {
        int cores = Runtime.getRuntime().availableProcessors();
        List<Thread> threads = new ArrayList<>();
        float[] sink = new float[cores];
        long start = System.nanoTime();
        for (int c = 0; c < cores; c++) {
            int core = c;
            threads.add(Thread.ofPlatform().start(() -> sink[core] = spin()));
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return cores * ROUNDS * CHAINS * 2.0 * S.length() / seconds;
    }

    private static float spin() {
        FloatVector[] acc = new FloatVector[CHAINS];
        for (int i = 0; i < CHAINS; i++) {
            acc[i] = FloatVector.broadcast(S, i);
        }
        FloatVector a = FloatVector.broadcast(S, 0.999f), b = FloatVector.broadcast(S, 1e-7f);
        FloatVector c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3], c4 = acc[4], c5 = acc[5];
        FloatVector c6 = acc[6], c7 = acc[7], c8 = acc[8], c9 = acc[9], c10 = acc[10], c11 = acc[11];
        for (long r = 0; r < ROUNDS; r++) {
            c0 = c0.fma(a, b); c1 = c1.fma(a, b); c2 = c2.fma(a, b); c3 = c3.fma(a, b);
            c4 = c4.fma(a, b); c5 = c5.fma(a, b); c6 = c6.fma(a, b); c7 = c7.fma(a, b);
            c8 = c8.fma(a, b); c9 = c9.fma(a, b); c10 = c10.fma(a, b); c11 = c11.fma(a, b);
        }
        return c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11)
                .reduceLanes(jdk.incubator.vector.VectorOperators.ADD);
    }
}
