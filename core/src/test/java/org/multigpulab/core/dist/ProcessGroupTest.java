package org.multigpulab.core.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ProcessGroupTest {

    /**
     * Rank 0 of a group whose other ranks all passed {@code others}: its {@code allReduce} adds their share, as
     * the real collective would.
     */
    private static ProcessGroup withOthers(int size, long others) {
        return new ProcessGroup() {
            @Override
            public int rank() {
                return 0;
            }

            @Override
            public int size() {
                return size;
            }

            @Override
            public String description() {
                return size + " ranks in a test";
            }

            @Override
            public void allReduce(float[] data, int offset, int length) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void allReduce(double[] data) {
                double[] theirs = new double[8];
                for (int i = 0; i < 4; i++) {
                    double piece = (others >>> (16 * i)) & 0xffff;
                    theirs[i] = piece;
                    theirs[4 + i] = piece * piece;
                }
                for (int i = 0; i < 8; i++) {
                    data[i] += (size - 1) * theirs[i];
                }
            }

            @Override
            public void broadcast(float[] data, int root) {}

            @Override
            public void reduceScatter(float[] data, int[] parts) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void allGather(float[] data, int[] parts) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void abort(String why, int exitCode) {}

            @Override
            public void close() {}
        };
    }

    @Test
    void ranksAgreeExactlyWhenTheirValuesAreEqual() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int trial = 0; trial < 1000; trial++) {
            long value = random.nextLong();
            long other = trial % 2 == 0 ? value : value ^ (1L << random.nextInt(64));
            int size = 2 + random.nextInt(1000);
            assertEquals(
                    value == other,
                    withOthers(size, other).allAgree(value),
                    "seed " + seed + ": " + value + " against " + (size - 1) + " ranks of " + other);
        }
        assertEquals(true, ProcessGroup.SINGLE.allAgree(random.nextLong()));
    }
}
