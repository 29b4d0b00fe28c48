package org.multigpulab.lessons.bench;

import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The processor's FP32 peak as Java reaches it: on every core at once, twelve independent chains of vector
 * fused multiply-adds on registers only, no memory traffic. What a perfect kernel could do here; a kernel's
 * share of it says how far from the hardware it is.
 */
public final class PeakFlops {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int CHAINS = 12;
    private static final long ROUNDS = 50_000_000;
    private static final long WARM_UP_ROUNDS = 20_000;
    private static final int RUNS = 12;

    private PeakFlops() {}

    /**
     * FLOP/s of all cores together, the best of {@link #RUNS} runs (0.1 to 0.2 s each). At start-up the JIT
     * compiles the lab's classes on one of the cores, and a run that shares its core with the compiler reads low:
     * with the best of three, one bench under {@code -XX:UseAVX=2} read 109 GFLOP/s where a JVM alone reads 159 to
     * 199 on the same machine.
     */
    public static double measure() {
        // compiled first, as a whole method: a loop that is only compiled while it runs (OSR) keeps the vectors
        // in memory
        for (int i = 0; i < 200; i++) {
            spin(WARM_UP_ROUNDS);
        }
        double best = 0;
        for (int run = 0; run < RUNS; run++) {
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
            threads.add(Thread.ofPlatform().start(() -> sink[core] = spin(ROUNDS)));
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
        return cores * (double) (ROUNDS / 1000 * 1000) * CHAINS * 2.0 * S.length() / seconds;
    }

    private static float spin(long rounds) {
        FloatVector a = FloatVector.broadcast(S, 0.999f), b = FloatVector.broadcast(S, 1e-7f);
        FloatVector c0 = FloatVector.broadcast(S, 0f),
                c1 = FloatVector.broadcast(S, 1f),
                c2 = FloatVector.broadcast(S, 2f);
        FloatVector c3 = FloatVector.broadcast(S, 3f),
                c4 = FloatVector.broadcast(S, 4f),
                c5 = FloatVector.broadcast(S, 5f);
        FloatVector c6 = FloatVector.broadcast(S, 6f),
                c7 = FloatVector.broadcast(S, 7f),
                c8 = FloatVector.broadcast(S, 8f);
        FloatVector c9 = FloatVector.broadcast(S, 9f),
                c10 = FloatVector.broadcast(S, 10f),
                c11 = FloatVector.broadcast(S, 11f);
        int outer = (int) (rounds / 1000);
        for (int o = 0; o < outer; o++) {
            for (int r = 0; r < 1000; r++) {
                c0 = c0.fma(a, b);
                c1 = c1.fma(a, b);
                c2 = c2.fma(a, b);
                c3 = c3.fma(a, b);
                c4 = c4.fma(a, b);
                c5 = c5.fma(a, b);
                c6 = c6.fma(a, b);
                c7 = c7.fma(a, b);
                c8 = c8.fma(a, b);
                c9 = c9.fma(a, b);
                c10 = c10.fma(a, b);
                c11 = c11.fma(a, b);
            }
        }
        return c0.add(c1)
                .add(c2)
                .add(c3)
                .add(c4)
                .add(c5)
                .add(c6)
                .add(c7)
                .add(c8)
                .add(c9)
                .add(c10)
                .add(c11)
                .reduceLanes(VectorOperators.ADD);
    }
}
