package org.multigpulab.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.Synthetic;

class BatchIteratorTest {

    private static final Dataset DATA = Synthetic.images("train", 100, 4);

    /** The labels of every batch of an epoch, in order, after skipping {@code skip} batches. */
    private static List<float[]> labels(boolean shuffle, long seed, int epoch, int skip) {
        BatchIterator it = BatchIterator.ofEpoch(DATA, 16, shuffle, seed, epoch);
        it.skip(skip);
        List<float[]> batches = new ArrayList<>();
        while (it.hasNext()) {
            HostBatch b = it.next();
            float[] y = new float[b.size()];
            System.arraycopy(b.y(), 0, y, 0, b.size());
            batches.add(y);
        }
        return batches;
    }

    @Test
    void anEpochsOrderFollowsFromTheSeedAndTheEpochAlone() {
        List<float[]> first = labels(true, 5, 2, 0);
        List<float[]> again = labels(true, 5, 2, 0);
        assertEquals(7, first.size(), "100 images in batches of 16");
        for (int i = 0; i < first.size(); i++) {
            assertArrayEquals(first.get(i), again.get(i));
        }
        assertFalse(
                Arrays.equals(first.getFirst(), labels(true, 5, 3, 0).getFirst()),
                "the next epoch is shuffled otherwise");
        assertFalse(Arrays.equals(first.getFirst(), labels(false, 5, 2, 0).getFirst()));
    }

    @Test
    void skippingBatchesLeavesTheRestAsTheyWere() {
        List<float[]> all = labels(true, 9, 1, 0);
        for (int skip : new int[] {0, 1, 4, 6, 7, 9}) {
            List<float[]> rest = labels(true, 9, 1, skip);
            assertEquals(Math.max(0, all.size() - skip), rest.size(), "after skipping " + skip);
            for (int i = 0; i < rest.size(); i++) {
                assertArrayEquals(all.get(skip + i), rest.get(i), "batch " + (skip + i + 1));
            }
        }
        BatchIterator it = BatchIterator.ofEpoch(DATA, 16, true, 9, 1);
        it.skip(3);
        assertEquals(4, it.next().number(), "batches keep their numbers");
    }
}
