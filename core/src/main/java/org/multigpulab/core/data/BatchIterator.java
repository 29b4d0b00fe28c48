package org.multigpulab.core.data;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Random;

/**
 * One epoch of mini-batches over a data set, like a PyTorch {@code DataLoader}: the order shuffled by a given
 * generator or kept, the last batch smaller when the batch size does not divide the set. The same two arrays
 * are refilled for every batch, so a batch is valid until the next call of {@link #next()}.
 */
public final class BatchIterator implements Iterator<HostBatch> {

    private final Dataset data;
    private final int batchSize;
    private final int[] order;
    private final float[] x;
    private final float[] y;
    private int position;
    private int number;

    /** Batches in the stored order. */
    public BatchIterator(Dataset data, int batchSize) {
        this(data, batchSize, null);
    }

    /** Batches in an order shuffled by {@code random}, or in the stored order when it is {@code null}. */
    public BatchIterator(Dataset data, int batchSize, Random random) {
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
        }
        this.data = data;
        this.batchSize = batchSize;
        this.order = new int[data.count()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        if (random != null) {
            for (int i = order.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        int rows = Math.min(batchSize, data.count());
        this.x = new float[rows * data.sampleLength()];
        this.y = new float[rows];
    }

    /** Number of batches in an epoch of {@code count} samples. */
    public static int batchesPerEpoch(int count, int batchSize) {
        return (count + batchSize - 1) / batchSize;
    }

    @Override
    public boolean hasNext() {
        return position < order.length;
    }

    @Override
    public HostBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int size = Math.min(batchSize, order.length - position);
        for (int r = 0; r < size; r++) {
            data.copySample(order[position + r], x, r * data.sampleLength(), y, r);
        }
        position += size;
        return new HostBatch(x, y, size, data.sampleLength(), ++number);
    }
}
