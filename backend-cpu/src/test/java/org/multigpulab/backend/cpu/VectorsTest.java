package org.multigpulab.backend.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/**
 * The cpu kernels' sums give the same bits whether or not the JIT has compiled them yet; rows are copied whole at
 * every length.
 */
class VectorsTest {

    /**
     * {@link Vectors#copyRow} copies one or two vectors without a loop, overlapping, and longer rows in a loop:
     * every length from one vector to three and a half, at every offset within a vector, writes exactly the row.
     */
    @Test
    void copyRowWritesTheWholeRowAndNothingElse() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int lanes = Gemm.species().length();
        for (int n = lanes; n <= 7 * lanes / 2; n++) {
            for (int at = 0; at < lanes; at++) {
                float[] src = new float[n + 2 * lanes], dst = new float[n + 2 * lanes];
                for (int i = 0; i < src.length; i++) {
                    src[i] = random.nextFloat();
                    dst[i] = -1f;
                }
                float[] expected = dst.clone();
                System.arraycopy(src, lanes - at, expected, at, n);
                Vectors.copyRow(src, lanes - at, dst, at, n);
                assertArrayEquals(expected, dst, "a row of " + n + " at " + at + "; random seed " + seed);
            }
        }
    }

    /**
     * {@code FloatVector.reduceLanes(ADD)} adds the lanes first to last while interpreted and in another order
     * once C2 has compiled it; {@link Vectors#sumLanes}, which BatchNorm's and the bias gradient's sums end with, must
     * not change with that, or a run would not repeat itself. Its order: the lanes added first to last.
     */
    @Test
    void sumsKeepTheirOrderOnceCompiled() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        int lanes = Gemm.species().length(), n = 40 * lanes + 3;
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = (float) random.nextGaussian() * 1e3f;
        }
        float[] laneSums = new float[lanes];
        for (int i = 0; i + lanes <= n; i += lanes) {
            for (int l = 0; l < lanes; l++) {
                laneSums[l] += values[i + l];
            }
        }
        float expected = 0;
        for (float s : laneSums) {
            expected += s;
        }
        FloatVector acc = FloatVector.zero(Gemm.species());
        for (int i = 0; i + lanes <= n; i += lanes) {
            acc = acc.add(FloatVector.fromArray(Gemm.species(), values, i));
        }
        for (int call = 0; call < 200_000; call++) { // well past the JIT's thresholds
            float sum = Vectors.sumLanes(acc);
            if (Float.floatToRawIntBits(sum) != Float.floatToRawIntBits(expected)) {
                assertEquals(expected, sum, 0f, "call " + call + " summed in another order; random seed " + seed);
            }
        }
    }
}
