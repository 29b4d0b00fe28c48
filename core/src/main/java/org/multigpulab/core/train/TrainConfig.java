package org.multigpulab.core.train;

import java.util.Objects;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.parallel.AllReduceAlgorithm;

/**
 * Every option of a training run, fixed before it starts: the notebook's {@code num_epochs}, {@code batch_size}
 * and {@code lr}; the random seed of the shuffling, and whether to shuffle at all; whether to check after every
 * step that all replicas hold the same parameters (a debug check, on in tests); how the gradients are summed over
 * the devices ({@code allReduce}), and whether in buckets of at most {@code bucketBytes} while the backward pass
 * runs (PyTorch DDP's {@code bucket_cap_mb}; 0 sums every parameter after it, as the notebook does); and the
 * processes that train together ({@link ProcessGroup#SINGLE} for one, as the notebook).
 *
 * <p>Immutable: the {@code with} methods return a changed copy. The constructor rejects values that cannot train.
 */
public record TrainConfig(
        int epochs,
        int batchSize,
        float lr,
        long seed,
        boolean shuffle,
        boolean checkReplicas,
        AllReduceAlgorithm allReduce,
        long bucketBytes,
        ProcessGroup processGroup) {

    public TrainConfig {
        if (epochs <= 0) {
            throw new IllegalArgumentException("epochs must be 1 or more, not " + epochs);
        }
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be 1 or more, not " + batchSize);
        }
        if (!Float.isFinite(lr) || lr <= 0) {
            throw new IllegalArgumentException("learning rate must be a positive finite number, not " + lr);
        }
        if (bucketBytes < 0) {
            throw new IllegalArgumentException("a bucket must hold 0 bytes (no buckets) or more, not " + bucketBytes);
        }
        Objects.requireNonNull(allReduce, "allReduce");
        Objects.requireNonNull(processGroup, "processGroup");
    }

    /** The recipe given, the gradients summed as the notebook sums them (naive, every parameter), in one process. */
    public TrainConfig(int epochs, int batchSize, float lr, long seed, boolean shuffle, boolean checkReplicas) {
        this(epochs, batchSize, lr, seed, shuffle, checkReplicas, AllReduceAlgorithm.NAIVE, 0, ProcessGroup.SINGLE);
    }

    /** The notebook's {@code train(num_gpus, batch_size=256, lr=0.2)} with 5 epochs, shuffled with random seed 1. */
    public static TrainConfig notebook() {
        return new TrainConfig(5, 256, 0.2f, 1, true, false);
    }

    public TrainConfig withEpochs(int epochs) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withBatchSize(int batchSize) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withLr(float lr) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withSeed(long seed) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withShuffle(boolean shuffle) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withCheckReplicas(boolean checkReplicas) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    public TrainConfig withAllReduce(AllReduceAlgorithm allReduce) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    /** Buckets of at most {@code bucketBytes} while the backward pass runs; 0 for none. */
    public TrainConfig withBucketBytes(long bucketBytes) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }

    /**
     * Training together with the other processes of {@code processGroup}: each takes its rank's share of every
     * global batch, and all must start from the same parameters.
     */
    public TrainConfig withProcessGroup(ProcessGroup processGroup) {
        return new TrainConfig(
                epochs, batchSize, lr, seed, shuffle, checkReplicas, allReduce, bucketBytes, processGroup);
    }
}
