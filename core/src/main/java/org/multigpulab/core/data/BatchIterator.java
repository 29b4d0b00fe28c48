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

    /**
     * The batches of epoch {@code epoch} (1, 2, …) of a run with random seed {@code seed}: shuffled by a generator
     * seeded with {@code seed + epoch - 1}, as PyTorch's {@code DistributedSampler} seeds each epoch, or in the
     * stored order when {@code shuffle} is false. An epoch's order is a function of the seed and the epoch alone,
     * so a run resumed in epoch e shuffles it as the uninterrupted run did.
     */
    public static BatchIterator ofEpoch(Dataset data, int batchSize, boolean shuffle, long seed, int epoch) {
        return new BatchIterator(data, batchSize, shuffle ? new Random(seed + epoch - 1) : null);
    }

    /** Passes over the next {@code batches} batches without reading them, as if {@link #next()} had returned them. */
    public void skip(int batches) {
        if (batches < 0) {
            throw new IllegalArgumentException("cannot skip " + batches + " batches");
        }
        for (int i = 0; i < batches && hasNext(); i++) {
            position += Math.min(batchSize, order.length - position);
            number++;
        }
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
        return new HostBatch(x, y, size, data.shape(), ++number);
    }
}
